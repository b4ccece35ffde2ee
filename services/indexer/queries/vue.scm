; Vue single-file components: <script> (lang="ts" → TypeScript) is parsed as code in place;
; template and style lines become module-level chunks.

(script_element
  (start_tag
    (attribute (attribute_name) @_attribute (quoted_attribute_value (attribute_value) @embed.language)))
  (raw_text) @embed.content
  (#eq? @_attribute "lang"))
((script_element (raw_text) @embed.content)
  (#set! embed.language "javascript"))

; the <script> / </script> lines themselves are no module-level code
(script_element (start_tag) @skip)
(script_element (end_tag) @skip)

(comment) @comment
