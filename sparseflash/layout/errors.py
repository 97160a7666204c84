"""The one exception of the pattern language, with a caret under the offending text."""

from __future__ import annotations

import difflib
from typing import Iterable, Optional, Tuple

Span = Tuple[int, int]  # [start, end) character offsets into the pattern text


class LayoutError(ValueError):
    """A pattern that cannot be parsed or compiled, or a layout that does not fit its use.

    Attributes:
        pattern: the pattern text the error refers to (``None`` when there is none).
        span: ``(start, end)`` character offsets of the offending piece (``None`` when the
            whole pattern, or no text at all, is at fault).
        reason: the bare explanation, without the picture.

    ``str(error)`` shows the reason, the pattern, and a caret line under the span::

        unknown primitive or preset 'locl' (did you mean 'local'?)
          local(2) | locl(1)
                     ^^^^
    """

    def __init__(self, reason: str, pattern: Optional[str] = None, span: Optional[Span] = None,
                 source: Optional[str] = None):
        self.reason = reason
        self.pattern = pattern
        self.span = span
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = f" (in preset file {self.source})" if self.source else ""
        if self.pattern is None:
            return self.reason + where
        lines = [self.reason + where]
        if self.span is None:
            lines.extend("  " + line for line in self.pattern.splitlines() or [""])
            return "\n".join(lines)
        start, end = self.span
        end = max(end, start + 1)
        # Show only the source line that holds the span (patterns may span several lines).
        line_start = self.pattern.rfind("\n", 0, start) + 1
        line_end = self.pattern.find("\n", start)
        line_end = len(self.pattern) if line_end == -1 else line_end
        line = self.pattern[line_start:line_end]
        caret_end = min(end, line_end) if line_end > start else start + 1
        caret = " " * (start - line_start) + "^" * max(1, caret_end - start)
        lines.append("  " + line)
        lines.append("  " + caret)
        return "\n".join(lines)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest candidate, or an empty string."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=2, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"'{c}'" for c in close) + "?)"
