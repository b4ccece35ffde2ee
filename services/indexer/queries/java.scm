; Java: classes, records, interfaces, enums, annotation types; methods and constructors with a body.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name body: (block)) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

(method_invocation object: (_)? @call.receiver name: (identifier) @call.name) @call
(object_creation_expression type: [
  (type_identifier) @call.name
  (generic_type (type_identifier) @call.name)
  (scoped_type_identifier (type_identifier) @call.name .)
]) @call

(import_declaration [(scoped_identifier) (identifier)] @import.target (asterisk)? @import.name) @import

(package_declaration) @skip
(line_comment) @comment
(block_comment) @comment
