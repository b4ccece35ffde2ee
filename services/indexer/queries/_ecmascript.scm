; Shared by javascript.scm and typescript.scm (included with `; inherits:`): node types both grammars have.

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function

; exports.foo = function () {} / Foo.prototype.bar = () => {}
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function

(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
; object literal members: { handler: () => {} } (Vue options, module.exports = {...})
(pair
  key: [(property_identifier) (string)] @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function

(call_expression
  function: [
    (identifier) @call.name
    (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)
  ]) @call
(new_expression
  constructor: [
    (identifier) @call.name
    (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)
  ]) @call

(import_statement
  (import_clause [
    (identifier) @import.name
    (named_imports (import_specifier name: (_) @import.name))
    (namespace_import (identifier) @import.name)
  ])
  source: (string (string_fragment) @import.target)) @import
(import_statement source: (string (string_fragment) @import.target)) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name))
  source: (string (string_fragment) @import.target)) @import
(export_statement source: (string (string_fragment) @import.target)) @import
; require("x") and import("x")
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.target))
  (#eq? @_require "require")) @import
(lexical_declaration
  (variable_declarator
    name: (object_pattern [
      (shorthand_property_identifier_pattern) @import.name
      (pair_pattern key: (property_identifier) @import.name)
    ])
    value: (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @import.target))))
  (#eq? @_require "require")) @import
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.target))) @import

(comment) @comment
