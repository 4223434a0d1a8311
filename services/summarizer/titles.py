"""Chinese titles without a summary endpoint: a small local model asked for the title alone (the title prompt, few-shot,
versioned), what it may answer, and the title it gives a paper that waits for a summary; no I/O."""

import hashlib
import re
from dataclasses import dataclass

from schemas.summary import Summary
from services.summarizer.checks import cjk_share

# Bump on any change of the wording or of the examples: the title cache is keyed by it.
TITLE_PROMPT_VERSION = "2026-12-07.1"
TITLE_MAX_TOKENS = 96  # a long title runs to ~45 tokens in Chinese; a model that rambles past this is cut off

TITLE_SYSTEM_PROMPT = (
    "Translate the title of a computer-science paper into Simplified Chinese. Keep model names, acronyms and terms "
    "Chinese papers leave in English. Answer with the Chinese title only."
)
# Two title pairs the reference site showed its readers (shared/seeds/004_8b52db47ceaf477e.txt, a topic page): the
# small model follows an example far better than an instruction. bench/zh_titles.py leaves them out of its reference.
TITLE_EXAMPLES = (
    (
        "ESPO: Early-Stopping Proximal Policy Optimization",
        "ESPO：早期停止的近端策略优化",
    ),
    (
        "Who Endorsed It? Measuring Authority Bias Across Expertise Levels in Language Models",
        "谁背书了它？测量语言模型中跨专业水平的权威偏差",
    ),
)
# A title in Chinese is shorter than in English; an answer over this many characters per English one is a model
# explaining or repeating itself, not a title.
MAX_LENGTH_RATIO = 1.5
# The Chinese share (checks.cjk_share) a title must reach: names and acronyms stay in English, so a title is often
# half Latin words ("DynaGraph: 通过动态拓扑重构的轻量级多模型交互框架" is 0.9); an English echo is 0.
MIN_TITLE_CJK_SHARE = 0.3

_LABEL = re.compile(r"^\s*(?:中文标题|标题|翻译|译文|Chinese title|Title)\s*[:：]\s*", re.I)
_QUOTES = "\"'“”‘’「」《》"


def title_messages(title: str) -> list[dict[str, str]]:
    """The chat messages asking for one title's translation."""
    messages = [{"role": "system", "content": TITLE_SYSTEM_PROMPT}]
    for english, chinese in TITLE_EXAMPLES:
        messages += [{"role": "user", "content": english}, {"role": "assistant", "content": chinese}]
    return [*messages, {"role": "user", "content": " ".join(title.split())}]


class InvalidTitle(ValueError):
    """The model's answer is no Chinese title of the paper; the message says why."""


def parse_title(answer: str | None, english: str) -> str:
    """The Chinese title in the model's answer: its first line without a label or quotes around it; InvalidTitle
    when that is empty, not Chinese, or far longer than a title."""
    lines = [line.strip() for line in (answer or "").splitlines() if line.strip()]
    if not lines:
        raise InvalidTitle("the answer is empty")
    title = _LABEL.sub("", lines[0]).strip().strip(_QUOTES).strip()
    if not title:
        raise InvalidTitle("the answer is empty")
    if cjk_share(title) < MIN_TITLE_CJK_SHARE:
        raise InvalidTitle(f"not Chinese: {title[:120]!r}")
    if len(title) > MAX_LENGTH_RATIO * len(english) + 10:
        raise InvalidTitle(f"{len(title)} characters for a title of {len(english)}")
    return title


def title_key(title: str, model: str) -> str:
    """The title cache's entry: one translation per title text, model and prompt version (papers sharing a title,
    and a paper whose abstract alone changed, share it)."""
    digest = hashlib.sha256(" ".join(title.split()).encode()).hexdigest()[:32]
    return f"{digest}:{model}:{TITLE_PROMPT_VERSION}"


@dataclass(frozen=True, slots=True)
class KnownTitle:
    """A title's translation as the cache keeps it: the Chinese title, or why the model gave none (kept too, so a
    title the model cannot translate is not asked again)."""

    title_zh: str | None
    model: str
    error: str | None = None


def with_title(summary: Summary, title_zh: str, model: str) -> Summary:
    """A waiting paper's summary (pending, or a community summary shown meanwhile) with the local model's Chinese
    title and its provenance. Our own summary, when written, carries its own title and replaces it whole."""
    return summary.model_copy(update={"title_zh": title_zh, "title_model": model})


def gets_a_title(summary: Summary) -> bool:
    """Whether the title path may give this summary a title: one that waits for ours and has none (a summary of
    ours, ok or failed, is the model's final word)."""
    return (summary.status == "pending" or summary.publisher is not None) and not summary.title_zh
