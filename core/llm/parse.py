"""Reading a model's answer back into values of the feature's closed set.

Answers arrive as JSON (structured output) or as the paper's free text ending in
"Conclusion: <option>", decorated in every way models like: markdown bold, headings, code
fences, ``<think>`` blocks of reasoning models, odd casing, and synonyms such as
"subject-object-verb".  Whatever the decoration, the result is either a label of the set (or
"Not enough information") or no value plus a ``problem`` that says why: a label outside the set
is never returned as a value.  What counts as an option comes from the catalog's Feature alone:
its option words, value labels and synonyms all map to codes, and every value read carries the
catalog's label for its code (GB107 "1" is stored as code 1, "present").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from core.catalog.model import NOT_ENOUGH_INFORMATION, Feature
from core.llm.features import PAPER_NOT_MENTIONED

NEI_PHRASES = (
    NOT_ENOUGH_INFORMATION, PAPER_NOT_MENTIONED, "not mentioned", "insufficient information",
    "not enough info", "cannot be determined", "can not be determined", "unknown", "undetermined",
    "no information", "not stated", "n/a", "na",
)
# Every pattern here runs in time linear in the answer's length, whatever the answer: a pattern whose
# repeated part can be matched two ways (``\s*#?\s*``, ``[\s*]*`` before ``^`` in multiline mode, a
# lazy ``.*?`` from an opening that is never closed) backtracks quadratically, and a garbage answer of
# 100,000 spaces or newlines then takes minutes (tests/core/test_llm_parse.py times the worst shapes).
_THINK_TAG = re.compile(r"</?think>", re.I)
_FENCE = re.compile(r"```[a-zA-Z]*+\s*+(.*?)```", re.S)  # possessive: no backtracking into the language tag
_CONCLUSION = re.compile(r"\bconclusion\b[*_`#\s]*(?:[:：]|[-–—]|\n)", re.I)
_CITED_LINE = re.compile(r"(?im)^(?:[^\S\n]|[*_#>-])*(?:cited\s+|relevant\s+)?paragraphs?"
                         r"(?:\s+(?:used|cited|relied on))?[*_`\s]*[:：][*_`\s]*(.*)$")
_CITED_INLINE = re.compile(r"(?i)(?:paragraphs?|¶)\s*(?:#\s*)?(\d+(?:\s*(?:,|and|&|-|–)\s*#?\d+)*)|\[(\d+)\]")
MAX_NUMBER_DIGITS = 6  # a longer paragraph number or case count is garbage (int() of 4,300+ digits raises)
MAX_CITATIONS = 1_000  # an answer citing more paragraphs than this is garbage: read no further
_PART_VALUE = r"1|0|yes|no|present|absent|true|false"


@dataclass(frozen=True)
class ParsedValue:
    """One value read from an answer; ``code`` is None for "Not enough information".

    ``label`` is the catalog's label of ``code`` (or "Not enough information").
    """

    feature_id: str
    code: str | None
    label: str


@dataclass
class ParsedAnswer:
    values: list[ParsedValue] = field(default_factory=list)
    reasoning: str = ""
    cited_numbers: list[int] = field(default_factory=list)
    problem: str | None = None  # why (some) values could not be read
    conclusion_text: str = ""
    unreadable_citations: list[str] = field(default_factory=list)  # JSON citations that name no paragraph ("²")

    @property
    def ok(self) -> bool:
        return bool(self.values) and self.problem is None


def key(text: str) -> str:
    """Compare labels ignoring case, punctuation, dashes and markdown.

    'Subject–Object–Verb' -> 'subject object verb'.
    """
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def strip_thinking(text: str) -> str:
    """Drop reasoning-model ``<think>`` blocks, including an unclosed one or a stray closing tag.

    A block runs from an opening tag to the first closing tag after it (what ``<think>.*?</think>``
    matches), found by one pass over the tags instead of that pattern, which rescans to the end of
    the text from every opening tag that is never closed.
    """
    kept, pos, opened = [], 0, None
    for tag in _THINK_TAG.finditer(text):
        closing = tag.group().startswith("</")
        if opened is None and not closing:
            opened = tag.start()
        elif opened is not None and closing:
            kept.append(text[pos:opened])
            pos, opened = tag.end(), None
    kept.append(text[pos:])
    text = "".join(kept)
    tags = list(_THINK_TAG.finditer(text))
    closes = [t for t in tags if t.group().startswith("</")]
    if closes:  # a stray closing tag: everything before it was reasoning
        text = text[closes[-1].end():]
    elif tags:  # an unclosed block: everything after it is reasoning
        text = text[: tags[0].start()]
    return text.strip()


def parse_answer(content: str | None, feature: Feature, evidence_count: int = 0) -> ParsedAnswer:
    """Read values, reasoning and cited paragraph numbers from a raw answer.

    Never raises, whatever ``content`` holds: garbage is an answer with a ``problem`` (stored
    without a value, online and from batch files alike).
    """
    if not isinstance(content, str):
        content = "" if content is None else str(content)
    text = strip_thinking(content)
    if not text:
        return ParsedAnswer(problem="The model returned an empty answer.")
    data = _json_object(text)
    if data is not None and ("value" in data or "strategies" in data):
        answer = _from_json(data, feature)
    else:
        answer = _from_text(text, feature)
    answer.cited_numbers, bad = _clean_numbers(answer.cited_numbers, evidence_count)
    if bad and answer.problem is None and evidence_count:
        shown = ", ".join(map(str, bad[:20])) + (", ..." if len(bad) > 20 else "")
        answer.reasoning += f"\n[GrammarLens: ignored citations of paragraphs that were not offered: [{shown}]]"
    if answer.unreadable_citations and answer.problem is None:
        shown = ", ".join(answer.unreadable_citations[:5]) + (", ..." if len(answer.unreadable_citations) > 5 else "")
        answer.reasoning += f"\n[GrammarLens: ignored citations that are not paragraph numbers: {shown}]"
    return answer


def _json_object(text: str) -> dict | None:
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        start, end = cand.find("{"), cand.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            obj = json.loads(cand[start:end + 1])
        except (ValueError, RecursionError):  # not JSON, a number of 4,300+ digits, nesting too deep
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _from_json(data: dict, feature: Feature) -> ParsedAnswer:
    answer = ParsedAnswer(reasoning=str(data.get("reasoning") or "").strip())
    cited = data.get("cited_paragraphs") or data.get("paragraphs") or []
    if isinstance(cited, str):  # "1, 2" instead of [1, 2]
        answer.cited_numbers = _numbers_of(cited)
        cited = []
    for item in (cited if isinstance(cited, list) else [cited])[:MAX_CITATIONS]:
        number = _paragraph_number(item)
        if number is not None:
            answer.cited_numbers.append(number)
        elif len(answer.unreadable_citations) <= 5:
            answer.unreadable_citations.append(_shown(item))
    if feature.is_multilabel:
        raw = data.get("strategies")
        if not isinstance(raw, dict):
            answer.problem = "The answer has no per-strategy values."
            return answer
        pairs = {key(k): str(v) for k, v in raw.items()}
        answer.conclusion_text = json.dumps(raw, ensure_ascii=False)
        _fill_multilabel(answer, feature, lambda part_id, label: pairs.get(key(label)))
        return answer
    raw_value = str(data.get("value") or "").strip()
    answer.conclusion_text = raw_value
    _fill_single(answer, feature, raw_value)
    return answer


def _from_text(text: str, feature: Feature) -> ParsedAnswer:
    matches = list(_CONCLUSION.finditer(text))
    if matches:
        last = matches[-1]
        reasoning, conclusion = text[: last.start()], text[last.end():]
    elif len(text) <= 120 and not feature.is_multilabel:
        reasoning, conclusion = "", text  # a bare "SOV" is an answer too
    elif feature.is_multilabel and _polar_pairs(text, feature):
        reasoning, conclusion = text, text
    else:
        return ParsedAnswer(reasoning=text, cited_numbers=_numbers_in(text),
                            problem='The answer has no "Conclusion:" line naming an option.')
    cited = _cited_from_text(reasoning)
    reasoning = _CITED_LINE.sub("", reasoning).strip().rstrip("*_#` \n")
    answer = ParsedAnswer(reasoning=reasoning, cited_numbers=cited)
    conclusion = conclusion.strip().strip("*_`#> \n")
    answer.conclusion_text = conclusion
    if feature.is_multilabel:
        pairs = _polar_pairs(conclusion, feature) or _polar_pairs(text, feature)
        if pairs:
            _fill_multilabel(answer, feature, lambda part_id, label: pairs.get(part_id))
        else:
            _polar_names(answer, feature, conclusion)
        return answer
    first = conclusion.split("\n\n")[0].strip()
    lines = [ln for ln in first.splitlines() if ln.strip()]
    _fill_single(answer, feature, lines[0] if len(lines) == 1 else first)
    if answer.problem and len(lines) > 1:
        retry = ParsedAnswer(reasoning=answer.reasoning, cited_numbers=answer.cited_numbers)
        _fill_single(retry, feature, lines[0])
        if retry.problem is None:
            return retry
    return answer


def _fill_single(answer: ParsedAnswer, feature: Feature, raw: str) -> None:
    code = match_code(raw, feature)
    if code is None:
        shown = raw if len(raw) <= 80 else raw[:77] + "..."
        answer.problem = f"The answer {shown!r} is not one of the options ({', '.join(feature.prompt_options())})."
    elif code == NOT_ENOUGH_INFORMATION:
        answer.values = [ParsedValue(feature.id, None, NOT_ENOUGH_INFORMATION)]
    else:
        answer.values = [ParsedValue(feature.id, code, feature.value_label(code) or code)]


def _fill_multilabel(answer: ParsedAnswer, feature: Feature, lookup) -> None:
    missing, bad = [], []
    for sub, (part_id, name) in zip(feature.sub_features, feature.parts, strict=True):
        raw = lookup(part_id, name)
        if raw is None:
            missing.append(name)
            continue
        code = match_code(str(raw), sub, feature.option_pairs())
        if code is None:
            bad.append(f"{name}={raw!r}")
        elif code == NOT_ENOUGH_INFORMATION:
            answer.values.append(ParsedValue(sub.id, None, NOT_ENOUGH_INFORMATION))
        else:
            answer.values.append(ParsedValue(sub.id, code, sub.value_label(code) or code))
    problems = []
    if missing:
        problems.append(f"no value for {', '.join(missing)}")
    if bad:
        problems.append(f"values outside {'/'.join(feature.option_words())} for {', '.join(bad)}")
    if problems:
        answer.problem = "The answer is incomplete: " + "; ".join(problems) + "."


def _polar_pairs(text: str, feature: Feature) -> dict[str, str]:
    """'Tone: 1, Interrogative word order: 0' -> {sub-feature id: raw value}."""
    found: dict[str, str] = {}
    for part_id, label in feature.parts:
        name = re.escape(label).replace(r"\-", "[-‐–\\s]?").replace(r"\ ", r"\s+")
        matches = list(re.finditer(rf"(?i){name}[*_`\"'\s]*[:=–—-][*_`\"'\s]*"
                                   rf"({_PART_VALUE}|{re.escape(NOT_ENOUGH_INFORMATION)})\b", text))
        if matches:  # the last mention counts
            found[part_id] = matches[-1].group(1)
    return found


def _polar_names(answer: ParsedAnswer, feature: Feature, conclusion: str) -> None:
    """The gold-file style 'Clause-final question particle, Tone': named parts present, the rest absent."""
    k = f" {key(conclusion)} "
    if key(conclusion) in {key(p) for p in NEI_PHRASES}:
        answer.values = [ParsedValue(s.id, None, NOT_ENOUGH_INFORMATION) for s in feature.sub_features]
        return
    named = {pid for pid, label in feature.parts if f" {key(label)} " in k}
    if not named:
        answer.problem = f"The answer {conclusion[:80]!r} names none of the strategies."
        return
    for sub in feature.sub_features:
        code = "1" if sub.id in named else "0"
        answer.values.append(ParsedValue(sub.id, code, sub.value_label(code) or code))


def match_code(raw: str, feature: Feature, options: tuple[tuple[str, str], ...] | None = None) -> str | None:
    """The code that ``raw`` names, NOT_ENOUGH_INFORMATION for its synonyms, or None.

    An answer may use the prompt's option word, the catalog label or a synonym of the feature
    ("subject-object-verb", "yes"); ``options`` overrides the option words (a multi-label
    feature codes each of its parts with its own words).
    """
    k = key(raw)
    if not k:
        return None
    pairs = list(feature.values) + list(options if options is not None else feature.option_pairs())
    exact = raw.strip().strip("*_`\"' .").casefold()
    exact_hits = {code for code, word in pairs if word.casefold() == exact}
    if len(exact_hits) == 1:  # WALS 143B has both "Neg[V-Neg]" and "[Neg-V-Neg]": punctuation matters there
        return exact_hits.pop()
    words: dict[str, str] = {}
    ambiguous: set[str] = set()
    for code, word in pairs:
        if words.setdefault(key(word), code) != code:
            ambiguous.add(key(word))
    for phrase in ambiguous:  # only an exact answer can name one of these
        del words[phrase]
    nei = {key(p) for p in NEI_PHRASES}
    if k in words:
        return words[k]
    if k in nei:
        return NOT_ENOUGH_INFORMATION
    synonyms = {key(s): code for s, code in feature.synonyms.items() if feature.value_label(code) is not None}
    if k in synonyms:
        return synonyms[k]
    by_count = _case_range(k, feature)
    if by_count:
        return by_count
    # A longer phrase naming exactly one option ("SOV (subject-object-verb)", "the order is SVO.").
    hits: dict[str, str] = {}  # matched phrase -> code
    padded = f" {k} "
    for phrase, code in list(words.items()) + list(synonyms.items()):
        if len(phrase) >= 3 and f" {phrase} " in padded:
            hits[phrase] = code
    for phrase in nei:
        if len(phrase) >= 8 and f" {phrase} " in padded:
            hits[phrase] = NOT_ENOUGH_INFORMATION
    # "no dominant order" also contains... nothing shorter should win over a longer phrase naming another code.
    kept = {p: c for p, c in hits.items() if not any(p != o and p in o and hits[o] != c for o in hits)}
    codes = set(kept.values())
    return codes.pop() if len(codes) == 1 else None


def _case_range(k: str, feature: Feature) -> str | None:
    """'6 cases' or '7' -> the code of '6-7 cases'; '12 cases' -> '10 or more cases' (labels like WALS 49A's)."""
    m = re.fullmatch(rf"(\d{{1,{MAX_NUMBER_DIGITS}}})(?: cases?)?", k)
    if not m:
        return None
    n = int(m.group(1))
    for code, label in feature.values:
        lk = key(label)
        r = re.fullmatch(r"(\d+)(?: (\d+))? cases?", lk)
        if r and int(r.group(1)) <= n <= int(r.group(2) or r.group(1)):
            return code
        r = re.fullmatch(r"(\d+) or more cases?", lk)
        if r and n >= int(r.group(1)):
            return code
    return None


def _paragraph_number(item: object) -> int | None:
    """A JSON citation as a paragraph number: 3, 3.0 or "3" (ASCII digits); None for "²", "3a", true, [3]..."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item if abs(item) < 10 ** MAX_NUMBER_DIGITS else None
    if isinstance(item, float):
        return int(item) if item.is_integer() and abs(item) < 10 ** MAX_NUMBER_DIGITS else None
    if isinstance(item, str):
        text = item.strip().lstrip("#¶").strip()
        return int(text) if text.isascii() and text.isdigit() and len(text) <= MAX_NUMBER_DIGITS else None
    return None


def _shown(item: object, limit: int = 20) -> str:
    """A short, printable form of a JSON value (control characters and lone surrogates escaped)."""
    try:
        text = json.dumps(item, ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8")
    except (ValueError, RecursionError):
        text = type(item).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cited_from_text(text: str) -> list[int]:
    lines = _CITED_LINE.findall(text)
    if lines:
        return _numbers_of(lines[-1])
    return _numbers_in(text)


def _numbers_in(text: str) -> list[int]:
    out: list[int] = []
    for m in _CITED_INLINE.finditer(text):
        out += _numbers_of(m.group(1) or m.group(2))
        if len(out) >= MAX_CITATIONS:
            return out[:MAX_CITATIONS]
    return out


def _numbers_of(text: str) -> list[int]:
    out: list[int] = []
    for a, b in re.findall(r"(\d+)\s*(?:[-–]\s*(\d+))?", text):
        if len(a) > MAX_NUMBER_DIGITS or len(b) > MAX_NUMBER_DIGITS:
            continue
        lo, hi = int(a), int(b) if b else int(a)
        out += list(range(lo, hi + 1)) if 0 <= hi - lo <= 50 else [lo]
        if len(out) >= MAX_CITATIONS:
            return out[:MAX_CITATIONS]
    return out


def _clean_numbers(numbers: list[int], count: int) -> tuple[list[int], list[int]]:
    good: list[int] = []
    bad: list[int] = []
    seen: set[int] = set()
    for n in numbers:
        if n in seen:
            continue
        seen.add(n)
        (good if 1 <= n <= count else bad).append(n)
    return good, bad
