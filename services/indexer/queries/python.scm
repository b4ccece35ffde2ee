; Python: functions (methods when inside a class), classes, calls, imports.

(function_definition
  name: (identifier) @name
  body: (block . (string)? @doc)) @definition.function

(class_definition
  name: (identifier) @name
  body: (block . (string)? @doc)) @definition.class

(call
  function: [
    (identifier) @call.name
    (attribute object: (_) @call.receiver attribute: (identifier) @call.name)
  ]) @call

(import_statement
  name: [
    (dotted_name) @import.target
    (aliased_import name: (dotted_name) @import.target)
  ]) @import

(import_from_statement
  module_name: (_) @import.target
  name: [
    (dotted_name) @import.name
    (aliased_import name: (dotted_name) @import.name)
  ]) @import

(import_from_statement
  module_name: (_) @import.target
  (wildcard_import) @import.name) @import

(future_import_statement) @skip

(comment) @comment
