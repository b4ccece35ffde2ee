; JSON: indexed as file-level chunks; long files split at top-level members.

(document (object (pair) @section))
