; Go: functions, methods (receiver type as parent), struct/interface/other type declarations.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(call_expression
  function: [
    (identifier) @call.name
    (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)
  ]) @call

(import_spec name: (_)? @import.name path: (_) @import.target) @import

(package_clause) @skip
; `import (` / `type (` lines: imports and type declarations are chunks of their own or trivial
(import_declaration) @skip
(type_declaration) @skip
(comment) @comment
