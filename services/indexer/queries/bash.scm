; Bash: functions; every command is a call; `source x` / `. x` imports a file.

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @call.name)) @call

(command
  name: (command_name (word) @_source)
  argument: [(word) (string) (raw_string)] @import.target
  (#any-of? @_source "source" ".")) @import

(comment) @comment
