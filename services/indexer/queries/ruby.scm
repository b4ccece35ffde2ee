; Ruby: methods (singleton methods too), classes; modules qualify what they contain.

(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @scope.type

(call receiver: (_)? @call.receiver method: (identifier) @call.name) @call

; require_relative "x" is relative to the file; require "x" is a load-path name.
((call
  method: (identifier) @_method
  arguments: (argument_list . (string (string_content) @import.target))) @import
  (#eq? @_method "require_relative")
  (#set! import.prefix "./"))
(call
  method: (identifier) @_method
  arguments: (argument_list . (string (string_content) @import.target))
  (#any-of? @_method "require" "load" "autoload")) @import

(comment) @comment
