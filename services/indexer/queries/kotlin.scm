; Kotlin: functions (methods inside classes/objects), classes, interfaces, enums, objects, type aliases.

(function_declaration (simple_identifier) @name (function_body) @body) @definition.function
(class_declaration (type_identifier) @name) @definition.class
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body)) @definition.enum
(object_declaration (type_identifier) @name) @definition.class
(type_alias (type_identifier) @name) @definition.type

(call_expression (simple_identifier) @call.name) @call
(call_expression
  (navigation_expression . (_) @call.receiver (navigation_suffix (simple_identifier) @call.name) .)) @call

(import_header (identifier) @import.target (wildcard_import)? @import.name) @import

(package_header) @skip
(line_comment) @comment
(multiline_comment) @comment
