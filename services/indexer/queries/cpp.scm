; C++: functions, methods (inline or `Class::method` out of line), classes/structs, enums, aliases;
; namespaces are transparent (like Java packages); #include "x.h".

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: [
    (pointer_declarator (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (_) @parent
      name: [(identifier) (destructor_name) (operator_name) (field_identifier)] @name))) @definition.method
(function_definition
  declarator: [
    (pointer_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: (_) @parent
          name: [(identifier) (destructor_name) (operator_name) (field_identifier)] @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: (_) @parent
          name: [(identifier) (destructor_name) (operator_name) (field_identifier)] @name)))
  ]) @definition.method

(class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
(namespace_definition body: (declaration_list) @body) @scope

(call_expression
  function: [
    (identifier) @call.name
    (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name)
    (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)
    (template_function name: (identifier) @call.name)
    (qualified_identifier scope: (_) @call.receiver name: (template_function name: (identifier) @call.name))
  ]) @call
(new_expression type: [(type_identifier) @call.name (qualified_identifier name: (type_identifier) @call.name)]) @call

(preproc_include path: [(string_literal (string_content) @import.target) (system_lib_string) @import.target]) @import

; include guards and `#pragma once` alone never make module-level code
(preproc_ifdef ["#ifndef" "#ifdef" "#endif"] @skip)
(preproc_def !value) @skip
(preproc_call) @skip
(comment) @comment
