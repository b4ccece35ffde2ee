; PHP: functions, classes, interfaces, traits, enums, methods with a body; `use` and require/include.

(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name body: (compound_statement)) @definition.method
(class_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition body: (compound_statement) @body) @scope

(function_call_expression function: [(name) (qualified_name (name) .)] @call.name) @call
(member_call_expression object: (_) @call.receiver name: (name) @call.name) @call
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name) @call
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name) @call
(object_creation_expression [(name) (qualified_name)] @call.name) @call

(namespace_use_declaration (namespace_use_clause [(qualified_name) (name)] @import.target)) @import
(namespace_use_declaration
  (namespace_name) @import.target
  body: (namespace_use_group (namespace_use_clause . (name) @import.name))) @import
(expression_statement [
  (require_expression (string (string_content) @import.target))
  (require_once_expression (string (string_content) @import.target))
  (include_expression (string (string_content) @import.target))
  (include_once_expression (string (string_content) @import.target))
]) @import
; require __DIR__ . '/x.php' is relative to the file
((expression_statement [
  (require_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.target)))
  (require_once_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.target)))
  (include_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.target)))
  (include_once_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.target)))
]) @import
  (#eq? @_dir "__DIR__")
  (#set! import.prefix "."))

(php_tag) @skip
(namespace_definition !body) @skip
(comment) @comment
