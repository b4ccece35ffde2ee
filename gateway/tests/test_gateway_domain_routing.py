import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from gateway.domain.routing import Route, RouteName, classify, extract_seeds, resolve_follow_up
from gateway.domain.sanitize import sanitize_prompt

PROMPTS = Path(__file__).resolve().parents[1] / "domain" / "data" / "routing_prompts.yaml"


def _labelled() -> list[tuple[str, dict]]:
    data = yaml.safe_load(PROMPTS.read_text())
    return [(split, case) for split, cases in data.items() for case in cases]


def _route(prompt: str) -> Route:
    return classify(sanitize_prompt(prompt).text)


def test_labelled_set_is_large_and_covers_every_route():
    cases = [case for _, case in _labelled()]
    assert len(cases) >= 150
    assert {case["route"] for case in cases} == {r.value for r in RouteName}
    assert sum(1 for case in cases if case.get("follow_up")) >= 20


def test_route_accuracy_on_the_labelled_set_is_at_least_90_percent():
    cases = _labelled()
    misses = [
        (case["prompt"], case["route"], route.name.value)
        for _, case in cases
        if (route := _route(case["prompt"])).name != case["route"]
    ]
    accuracy = 1 - len(misses) / len(cases)
    assert accuracy >= 0.9, misses


@pytest.mark.parametrize("split", ["holdout", "holdout_2", "holdout_3", "holdout_4"])
def test_each_holdout_split_stays_above_90_percent(split):
    cases = [case for s, case in _labelled() if s == split]
    correct = sum(_route(case["prompt"]).name == case["route"] for case in cases)
    assert correct / len(cases) >= 0.9


def test_no_prompt_that_needs_context_is_skipped():
    false_skips = [
        case["prompt"]
        for _, case in _labelled()
        if case["route"] != "skip" and _route(case["prompt"]).name is RouteName.SKIP
    ]
    assert false_skips == []


def test_content_free_replies_are_skipped_because_their_context_is_already_in_the_conversation():
    for _, case in _labelled():
        if case.get("follow_up"):
            route = _route(case["prompt"])
            assert route.name is RouteName.SKIP, case["prompt"]
            assert route.seeds == ()


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("thanks!", RouteName.SKIP),
        ("ok thanks", RouteName.SKIP),
        ("ok", RouteName.SKIP),
        ("yes thanks", RouteName.SKIP),  # the previous prompt's block is already in the conversation
        ("thanks, now add a --json flag", RouteName.LOOKUP),
        ("perfect, that's exactly it 👍", RouteName.SKIP),  # an acknowledgement, like "that's it"
        ("that's exactly it, but where is the retry limit set?", RouteName.LOOKUP),
        ("hey, who calls parse_config?", RouteName.FLOW),
        ("🙏", RouteName.SKIP),
        ("/clear", RouteName.SKIP),
        ("/init", RouteName.ARCHITECTURE),
        ("/fix-issue 42", RouteName.BUG),
        ("what does the stack trace say", RouteName.BUG),
        ("trace the request path", RouteName.FLOW),
    ],
)
def test_hand_checked_routes(prompt, expected):
    assert classify(prompt).name is expected


def test_thin_bug_report_is_a_follow_up_with_its_own_intent():
    route = classify("still broken")
    assert route.name is RouteName.BUG and route.follow_up


def test_default_lookup_has_middling_confidence_and_says_why():
    route = classify("the checkout page")
    assert route.name is RouteName.LOOKUP
    assert route.confidence == 0.5
    assert route.reasons == ("no specific intent: default lookup",)


def test_seeds_include_identifiers_paths_quoted_and_call_shaped_names_in_prompt_order():
    seeds = extract_seeds("why does `Loader` in src/config/load.py call parse_config() and readFile twice?")
    assert seeds == ("Loader", "src/config/load.py", "parse_config", "readFile")


def test_seeds_skip_urls_abbreviations_and_everyday_tech_words():
    seeds = extract_seeds(
        "e.g. see https://github.com/x/y.py — on macOS with GitHub and JavaScript, fix user_id"
    )
    assert seeds == ("user_id",)


def test_path_seeds_drop_line_numbers_and_at_mentions():
    route = classify("look at @gateway/http.py:120 and kit/tokens.py")
    assert route.path_seeds == ("gateway/http.py", "kit/tokens.py")
    assert route.symbol_seeds == ()


def test_seeds_from_a_pasted_traceback_come_from_its_summary():
    prompt = (
        "Traceback (most recent call last):\n"
        '  File "app/server.py", line 40, in run\n'
        "    cfg = load()\n"
        "KeyError: 'PORT'"
    )
    route = _route(prompt)
    assert route.name is RouteName.BUG
    assert "app/server.py" in route.seeds and "KeyError" in route.seeds


def test_plain_words_are_not_seeds_but_quoted_and_code_shaped_names_are():
    assert extract_seeds("the upload handler and the test hook decides what to do") == ()
    assert extract_seeds("the `tokenize` function and parse_config()") == ("tokenize", "parse_config")


def test_a_conventional_commit_header_is_a_label_not_a_call():
    assert extract_seeds("fix(router): handle a trailing slash in mounted routers") == ()
    assert extract_seeds("feat(api)!: drop parse_config()") == ("parse_config",)
    assert extract_seeds("why does fix(router) return None") == ("fix",)
    # a call at the start of a line is still a call unless it is a commit type
    assert extract_seeds("normalize(path): crashes on Windows drive letters") == ("normalize",)


def test_continuation_stays_skipped_after_a_routed_prompt():
    previous = classify("who calls normalize_path?")
    assert resolve_follow_up(classify("continue"), previous).name is RouteName.SKIP


def test_thin_intent_keeps_its_route_but_takes_the_previous_seeds():
    previous = classify("where is parse_config defined")
    resolved = resolve_follow_up(classify("still broken"), previous)
    assert resolved.name is RouteName.BUG
    assert resolved.seeds == ("parse_config",)


def test_follow_up_without_history_is_unchanged_and_after_a_skip_is_skipped():
    route = classify("yes")
    assert resolve_follow_up(route, None) == route
    assert resolve_follow_up(route, classify("thanks")).name is RouteName.SKIP
    thin = classify("still broken")  # its own intent: not a continuation of the skipped prompt
    assert resolve_follow_up(thin, classify("thanks")) == thin
    content = classify("who calls x_y")
    assert resolve_follow_up(content, classify("where is a_b")) == content


def test_classify_costs_a_bounded_multiple_of_sanitising_the_same_prompts():
    """classify is a few precompiled regular expressions over the prompt (typically ~0.2 ms, see
    `python -m bench hook` for the hook's CPU); measured against sanitize_prompt, another regex pass over
    the same texts in the same run, so a loaded machine slows both alike. Median of 5 per prompt."""
    raw = [case["prompt"] for _, case in _labelled()]
    raw.append("please look at " + "the parser and LoaderThing in src/a/b.py " * 200)
    prompts = [sanitize_prompt(p).text for p in raw]

    def total(fn: Callable[[str], object], texts: list[str]) -> float:
        for text in texts:
            fn(text)  # warm up
        spent = 0.0
        for text in texts:
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                fn(text)
                runs.append(time.perf_counter() - started)
            spent += statistics.median(runs)
        return spent

    classifying, sanitising = total(classify, prompts), total(sanitize_prompt, raw)
    assert classifying < 40 * sanitising, (
        f"classify {classifying * 1e3:.1f} ms vs sanitize {sanitising * 1e3:.1f} ms"
    )


@pytest.mark.parametrize(
    "unit",
    [
        "again ",
        "ok ",
        "hiya ",
        "thank you ",
        "all good now ",
        "yes please ",
        "see you ",
        "a b ",
        "1 2 ",
        ":) ",
    ],
)
def test_runs_of_look_alike_phrases_do_not_backtrack_exponentially(unit):
    import signal

    def too_slow(*_):
        raise TimeoutError(f"classify backtracked on {unit!r} × n")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        for tail in ("", "zzz", " add x_y"):
            prompt = (unit * 80)[: 158 - len(tail)] + tail
            started = time.process_time()  # CPU time: other load on the machine does not count
            classify(prompt)
            assert time.process_time() - started < 0.1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
