"""``render``: Markdown rendered by a CommonMark renderer (markdown-it, with GitHub's tables), as
the elements it made and its text, to check that interpolated values add no element."""

from __future__ import annotations

from html.parser import HTMLParser

from markdown_it import MarkdownIt


class Rendered(HTMLParser):
    """The start tags (with their attributes) and the text of rendered HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, tuple(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def render(markdown: str) -> Rendered:
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    parsed = Rendered()
    parsed.feed(html)
    parsed.close()
    return parsed
