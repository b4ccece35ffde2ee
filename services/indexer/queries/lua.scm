; Lua: functions; `function M.f()` / `function M:f()` are methods of M; require("a.b") imports.

(function_declaration name: (identifier) @name) @definition.function
(function_declaration
  name: [
    (dot_index_expression table: (_) @parent field: (identifier) @name)
    (method_index_expression table: (_) @parent method: (identifier) @name)
  ]) @definition.function
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function

(function_call
  name: [
    (identifier) @call.name
    (dot_index_expression table: (_) @call.receiver field: (identifier) @call.name)
    (method_index_expression table: (_) @call.receiver method: (identifier) @call.name)
  ]) @call

(function_call
  name: (identifier) @_require
  arguments: (arguments . (string content: (string_content) @import.target))
  (#eq? @_require "require")) @import

(comment) @comment
