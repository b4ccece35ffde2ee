; YAML: indexed as file-level chunks; long files split at top-level keys and documents.

(stream (document (block_node (block_mapping (block_mapping_pair) @section))))
(stream (document) @section)
