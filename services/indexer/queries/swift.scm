; Swift: functions (methods inside types), classes/structs/actors, enums, protocols, type aliases;
; extensions qualify their members with the extended type.

(function_declaration name: (simple_identifier) @name body: (function_body) @body) @definition.function
(init_declaration "init" @name body: (function_body) @body) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration "enum" name: (type_identifier) @name) @definition.enum
(protocol_declaration name: (type_identifier) @name) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type
(class_declaration "extension" name: (user_type (type_identifier) @name) body: (_) @body) @scope.type

(call_expression (simple_identifier) @call.name) @call
(call_expression
  (navigation_expression target: (_) @call.receiver suffix: (navigation_suffix suffix: (simple_identifier) @call.name))) @call

(import_declaration (identifier) @import.target) @import

(comment) @comment
(multiline_comment) @comment
