"""Questions about the test world's pages that only one page answers: no content word of the question is on
another page (see Tests/support/mini_web.py), so an answer quoting the right page cites only that source."""
from __future__ import annotations

# page path under /web/ -> (question, a phrase of the page that answers it)
ONLY_ON = {
    "bees/waggle-dance": ("What does the scatter in successive attempts achieve?", "scatter"),
    "bees/round-dance": ("What does the Nasonov gland do?", "Nasonov gland"),
    "bees/history": ("In which city was Karl von Frisch born?", "Vienna"),
    "bees/field-notes.pdf": ("How far was the sugar feeder moved?", "sugar feeder"),
    "bees/navigation-faq": ("How is cloud cover handled?", "cloud cover"),
    "bees/sun-compass": ("What happens when it is overcast?", "overcast"),
}
# a question no page of the test world says anything about
UNRELATED = "What is the tax rate on imported cars in Norway?"


def path_of(url: str) -> str:
    return url.rsplit("/web/", 1)[-1]
