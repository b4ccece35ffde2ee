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

; module.exports = function noopSet () {}: named after the function
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (function_expression name: (identifier) @name body: (_) @body)))
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; exports.foo = function () {} / Foo.prototype.bar = () => {}
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function

;  Foo.prototype.bar = function () {}: a method of Foo
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression object: (identifier) @parent property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))
  (#eq? @_prototype "prototype")) @definition.method

; Foo.prototype = { bar () {}, baz: function () {} }: methods of Foo
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @parent property: (property_identifier) @_prototype)
    right: (object (method_definition name: (_) @name) @definition.method)))
  (#eq? @_prototype "prototype"))
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @parent property: (property_identifier) @_prototype)
    right: (object
      (pair
        key: [(property_identifier) (string)] @name
        value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)))
  (#eq? @_prototype "prototype"))

; chained assignment: res.contentType = res.type = function contentType () {}
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: (assignment_expression
      right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))) @definition.function

; a named function handed to a helper: defineGetter(req, 'ip', function ip () {}), app.get('/', function handler () {})
(arguments (function_expression name: (identifier) @name body: (_) @body) @definition.function)
; return function hookRunner () {}, obj[Symbol.asyncDispose] = function dispose () {}
(return_statement (function_expression name: (identifier) @name body: (_) @body) @definition.function)
(expression_statement
  (assignment_expression
    left: (subscript_expression)
    right: (function_expression name: (identifier) @name body: (_) @body))) @definition.function

; Object.defineProperty(obj, 'x', { get () {}, set (v) {} }): the property x
((call_expression
  function: (member_expression object: (identifier) @_object property: (property_identifier) @_define)
  arguments: (arguments (_) . (string (string_fragment) @name) . (object) @body))
  (#eq? @_object "Object")
  (#eq? @_define "defineProperty")) @definition.function

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
