; HTML: inline <script> is parsed as JavaScript in place (unless its type says otherwise);
; <script src> and <link href> are imports; the rest becomes module/file-level chunks.

(script_element
  (start_tag
    (attribute (attribute_name) @_attribute (quoted_attribute_value (attribute_value) @embed.language)))
  (raw_text) @embed.content
  (#eq? @_attribute "type"))
((script_element (raw_text) @embed.content)
  (#set! embed.language "javascript"))

(script_element
  (start_tag
    (attribute (attribute_name) @_attribute (quoted_attribute_value (attribute_value) @import.target))
    (#eq? @_attribute "src"))) @import
(element
  (start_tag
    (tag_name) @_tag
    (attribute (attribute_name) @_attribute (quoted_attribute_value (attribute_value) @import.target))
    (#eq? @_tag "link")
    (#eq? @_attribute "href"))) @import

; the <script> / </script> lines themselves are no module-level code
(script_element (start_tag) @skip)
(script_element (end_tag) @skip)

(comment) @comment
