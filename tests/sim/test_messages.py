from __future__ import annotations

from sim.run.messages import first_error, parse_messages

LOG = """\
%Warning-WIDTHTRUNC: /d/rtl/a.sv:12:15: Operator ASSIGN expects 4 bits on the Assign RHS, but Assign RHS's CONST '32'h5' generates 32 bits.
                                     : ... note: In instance 'tb.dut'
   12 |   assign x = 32'h5;
      |               ^
%Error: /d/tb.sv:7:3: syntax error, unexpected endmodule
    7 |   endmodule
      |   ^~~~~~~~~
%Error-PINNOTFOUND: /d/tb.sv:4:20: Pin not found: 'foo'
%Error: Exiting due to 2 error(s)
"""


def test_parse_messages_structured_fields() -> None:
    msgs = parse_messages(LOG)
    assert [m.severity for m in msgs] == ["error", "error", "warning"]
    err = msgs[0]
    assert (err.file, err.line, err.column, err.tag) == ("/d/tb.sv", 7, 3, "")
    assert err.text.startswith("syntax error")
    assert msgs[1].tag == "PINNOTFOUND"
    warn = msgs[2]
    assert (warn.tag, warn.line, warn.column) == ("WIDTHTRUNC", 12, 15)


def test_summary_lines_are_not_messages() -> None:
    assert all("Exiting due to" not in m.text for m in parse_messages(LOG))


def test_first_error() -> None:
    assert first_error(parse_messages(LOG)) is not None
    assert first_error(parse_messages("%Warning-X: a.sv:1:1: w\n")) is None


def test_message_without_location() -> None:
    (m,) = parse_messages("%Error: Cannot find file containing module: 'foo'\n")
    assert (m.file, m.line, m.severity) == ("", 0, "error")
