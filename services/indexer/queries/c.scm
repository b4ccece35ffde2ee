; C: function definitions, structs/unions (class), enums, typedefs; #include "x.h".

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type

(call_expression
  function: [
    (identifier) @call.name
    (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)
  ]) @call

(preproc_include path: [(string_literal (string_content) @import.target) (system_lib_string) @import.target]) @import

; include guards and `#pragma once` alone never make module-level code
(preproc_ifdef ["#ifndef" "#ifdef" "#endif"] @skip)
(preproc_def !value) @skip
(preproc_call) @skip
(comment) @comment
