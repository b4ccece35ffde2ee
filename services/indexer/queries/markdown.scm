; Markdown: indexed as file-level chunks; long files split at headings.

(atx_heading) @section
(setext_heading) @section
