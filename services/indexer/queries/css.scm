; CSS: indexed as file-level chunks; long files split at rule sets / at-rules. @import names a file.

(stylesheet (rule_set) @section)
(stylesheet (media_statement) @section)
(stylesheet (keyframes_statement) @section)
(stylesheet (supports_statement) @section)
(stylesheet (at_rule) @section)

(import_statement [(string_value (string_content) @import.target) (call_expression (arguments (string_value (string_content) @import.target)))]) @import

(comment) @comment
