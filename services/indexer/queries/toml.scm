; TOML: indexed as file-level chunks; long files split at [tables] / [[arrays of tables]].

(table) @section
(table_array_element) @section
