"""What holds now takes the room first: found by following, fold by fold, values of long chats
that never reached the summary (a count a tool changed, a number put right in passing, a month
read as a name) or lost their place to what they replaced, and by what a question or a tool's
result repeated."""

from __future__ import annotations

import json

from _folds import assistant, folds, tool_turn, user

from chatfold import SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.summarizers.extractive.summarizer import _answer_only, _result_news


def test_a_count_a_tool_changed_is_changed_where_it_was_said() -> None:
    booked = [user("PRIVATE PARTY!! okafors, 40th bday, sat 23 aug. mrs o says 28 covers, set "
                   "menu £55pp, £200 deposit. book it in"),
              *tool_turn("c1", "create_booking", json.dumps(
                  {"name": "Okafor 40th", "date": "2025-08-23", "covers": 28}),
                  json.dumps({"booking_ref": "PB-2308", "status": "confirmed", "covers": 28})),
              assistant("Booked: Okafor 40th, 28 covers, ref PB-2308.")]
    updated = [user("okafor final numbers in, 31 covers (3 dropped out, flu going round), 6 of "
                    "them kids. update it pls"),
               *tool_turn("c2", "update_booking", json.dumps(
                   {"booking_ref": "PB-2308", "covers": 31}),
                   json.dumps({"booking_ref": "PB-2308", "status": "updated", "covers": 31})),
               assistant("Updated PB-2308: 31 covers.")]
    out = folds("en", booked, updated)
    assert "mrs o says 31 covers" in out and "28 covers" not in out, out


def test_a_count_a_tool_changed_leaves_other_numbers_alone() -> None:
    booked = [user("the book club is 28 members now and we meet at 7"),
              *tool_turn("c1", "create_booking", json.dumps({"room": "B2", "seats": 28}),
                         json.dumps({"booking_ref": "RM-51", "seats": 28}))]
    updated = [*tool_turn("c2", "update_booking", json.dumps({"booking_ref": "RM-51", "seats": 30}),
                          json.dumps({"booking_ref": "RM-51", "status": "updated", "seats": 30}))]
    out = folds("en", [*booked, assistant("Room B2 booked.")],
                [user("add two seats to RM-51 please"), *updated, assistant("Done.")])
    assert "28 members" in out, out  # (members are no seats)


def test_a_number_put_right_in_passing_is_the_number_meant() -> None:
    out = folds("en", [user("my box is now in rack F shelf 14 sorry shelf 4 not 14."),
                       assistant("Noted.")])
    assert "rack F shelf 4" in out and "14" not in out, out


def test_a_month_is_no_name_a_next_turn_renames() -> None:
    # "It's all Sylvanian Families" (the next turn, of a grandchild's toys) wrote "26 Sylvanian
    # Families" for "26 September" in the return date.
    out = folds("en", [user("We're coming home on 26 September now instead."),
                       assistant("Noted: home on 26 September."),
                       user("It's all Sylvanian Families. She's gone off pink, it's all green "
                            "now."),
                       assistant("Lovely.")])
    assert "26 September" in out and "26 Sylvanian" not in out, out


def test_a_question_its_answer_restates_takes_no_room() -> None:
    assert _answer_only("can you check AA 2291? → AA 2291 now departs at 9:15 from gate B7.") \
        == "AA 2291 now departs at 9:15 from gate B7."
    # (an answer that needs its question, or leaves a value of it out, keeps it)
    assert _answer_only("what time is standup? → 9:30.") == "what time is standup? → 9:30."
    assert _answer_only("is the 14:05 to York still on? → It is, platform 3 as usual.") \
        == "is the 14:05 to York still on? → It is, platform 3 as usual."


def test_a_result_that_repeats_its_call_says_only_what_is_new() -> None:
    line = ("Tool update_standing_order(supplier=Dale Farm, item=Unsalted butter, qty=14kg) → "
            "status=updated, item=Unsalted butter, qty=14kg, effective=next delivery")
    assert _result_news(line) == ("Tool update_standing_order(supplier=Dale Farm, item=Unsalted "
                                  "butter, qty=14kg) → status=updated, effective=next delivery")
    plain = "Tool get_weather(city=Leeds) → Rain from 3pm, 11°C"
    assert _result_news(plain) == plain


def test_the_summary_is_compacted_only_over_its_cap() -> None:
    turn = [user("can you check AA 2291? we fly tomorrow"),
            *tool_turn("c1", "get_flight_status", json.dumps({"flight": "AA2291"}),
                       json.dumps({"flight": "AA2291", "status": "delayed", "dep": "09:15"})),
            assistant("AA 2291 now departs at 9:15 from gate B7, a delay of 95 minutes.")]
    roomy = ExtractiveSummarizer().summarize(SummaryRequest("", tuple(turn), "en", 400))
    assert "check AA 2291" in roomy, roomy


def test_a_change_sharing_a_rare_word_takes_the_room_of_what_it_replaces() -> None:
    # The newer statement shares "Juno" (and nothing else) with the older one and gives a new
    # name: with room for one of them besides another fact, the newer one stays; with room
    # for all, both do (a likely replacement, not a sure one).
    older = [user("Marguerite from next door is watching Juno while I'm in Denver next week."),
             assistant("Nice, Juno will be in good hands.")]
    other = [user("My sister Ana works at the Lisbon aquarium as a marine biologist."),
             assistant("What a job!")]
    newer = [user("Change of plan, her nephew Desmond is taking care of Juno instead."),
             assistant("OK, Desmond it is.")]
    for cap, both in ((50, False), (80, True)):
        summary = ""
        for turn in (older, other, newer):
            summary = ExtractiveSummarizer().summarize(
                SummaryRequest(summary, tuple(turn), "en", cap))
        assert "Desmond is taking care of Juno" in summary and "Lisbon" in summary, summary
        assert ("Marguerite" in summary) == both, summary
