"""What holds now takes the room first: found by following, fold by fold, values of long chats
that never reached the summary (a count a tool changed, a number put right in passing, a month
read as a name) or lost their place to what they replaced, and by what a question or a tool's
result repeated."""

from __future__ import annotations

import json

from _folds import assistant, folds, tool_turn, user


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
