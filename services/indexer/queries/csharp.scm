; C#: classes, structs, records, interfaces, enums, delegates; methods, constructors, local functions.
; Namespaces are transparent (like Java packages).

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(namespace_declaration body: (declaration_list) @body) @scope

(invocation_expression
  function: [
    (identifier) @call.name
    (member_access_expression expression: (_) @call.receiver name: (identifier) @call.name)
    (generic_name (identifier) @call.name)
    (member_access_expression expression: (_) @call.receiver name: (generic_name (identifier) @call.name))
  ]) @call
(object_creation_expression type: [(identifier) @call.name (generic_name (identifier) @call.name)]) @call

(using_directive [(identifier) (qualified_name)] @import.target) @import

(file_scoped_namespace_declaration) @skip
(comment) @comment
