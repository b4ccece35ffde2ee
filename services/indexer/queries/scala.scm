; Scala: functions/methods with a body, classes, objects, traits, enums, type aliases.

(function_definition name: (identifier) @name body: (_) @body) @definition.function
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.interface
(enum_definition name: (identifier) @name) @definition.enum
(type_definition name: (type_identifier) @name) @definition.type

(call_expression
  function: [
    (identifier) @call.name
    (field_expression value: (_) @call.receiver field: (identifier) @call.name)
  ]) @call
(instance_expression (type_identifier) @call.name) @call

; `import a.b.C` has one node per segment: `import.span` joins the captured segments into one target.
((import_declaration (identifier) @import.target) @import
  (#set! import.span "true"))
((import_declaration
  (identifier) @import.target
  (namespace_selectors [(identifier) @import.name (arrow_renamed_identifier name: (identifier) @import.name)])) @import
  (#set! import.span "true"))

(package_clause) @skip
(comment) @comment
(block_comment) @comment
