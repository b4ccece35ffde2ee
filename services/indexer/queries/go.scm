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

(type_spec name: (type_identifier) @name type: (struct_type) @body) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(call_expression
  function: [
    (identifier) @call.name
    (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)
  ]) @call

(import_spec name: (_)? @import.name path: (_) @import.target) @import

(package_clause) @skip
(comment) @comment
