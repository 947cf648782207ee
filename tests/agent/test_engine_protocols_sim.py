"""The engine on designs that need closed-loop sequences, and on designs that fail on some inputs.

Each design in tests/data/program/ was written for these tests (needs Verilator):
- uart_rx: a UART receiver; it only produces bytes when it gets well-timed frames;
- tiny_cpu: a CPU on a valid/ready memory interface that traps on opcodes it does not know;
- split_cpu: a CPU on split-transaction ports (request/accept, a later tagged answer) whose
  decoder compares masked words, `(inst & MASK) == MATCH`;
- uart_cmd: a UART command bridge whose bit period is CLK_FREQ / UART_SPEED (128 clocks, a
  period no parameter names) and whose parser takes 'W' addr data, 'R' addr and 'S';
- ahb_cpu: the tiny CPU on one AHB-Lite manager port (address and data phases, HREADY waits,
  byte stores by HSIZE), upper-case port names;
- ahb_regs: an AHB-Lite subordinate with byte lanes by HSIZE, a waited register, ERROR responses
  and a key register (a word the design compares its write data with);
- pwrup: a unit that works only after a power-up handshake with no address or data
  (`pwrup_req` held until `pwrup_ack`), asked again every 64 inputs;
- vr_sink: a burst source whose output waits for its ready input;
- div_dnc: a divider Verilator cannot simulate when start arrives with a zero divisor
  (%Error-DIDNOTCONVERGE, no assertion to blame);
- fatal_combo: a unit that calls $fatal on one reserved input combination;
- sd_spi: an SD-card controller over SPI (initialisation, block reads with a CRC16 check);
- i2c_regs: an I2C target at its parameter's address (it drives SDA only) with four registers
  behind a register pointer;
- axil_logger: an AXI4-Lite master whose write data follows the latest sample even while WVALID
  waits (core_dbg_bridge's bug), which only a slave stalling longer than a sample gap shows;
- spi_flash: a NOR flash controller over SPI (ID, erase, program, status polling, read back);
- sd_regs: an SD-card controller behind Wishbone registers whose card commands are register
  words (0x40 + index, a data flag, a flag that clears its sticky error);
- i2c_wb_slave: an I2C target behind Wishbone registers that holds SCL after every byte until
  software writes "go on", sampling its lines once per prescaler period;
- slow_line: a UART's change counter and break-reloaded baud counter behind Wishbone, whose
  upper bits move only under a large period and after millions of quiet clocks.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agent.heuristic.engine import run_engine
from agent.policy import Budget
from sim.suite import load_design
from sim.types import SimResult, Status

DATA = Path(__file__).resolve().parents[1] / "data" / "program"

pytestmark = pytest.mark.simulator_required


def _covered(result: SimResult | None, comment: str, file: str = "") -> bool:
    """Whether the point with this comment (a toggle such as `o_valid:0->1`) was covered."""
    assert result is not None
    assert result.report is not None
    found = [p for p in result.report.points if p.comment == comment and file in p.file]
    assert found, f"no point {comment!r}"
    return any(p.count > 0 for p in found)


def _engine(name: str, calls: int, strategy: str = "heuristic"):  # type: ignore[no-untyped-def]
    design = load_design(DATA / name)
    return run_engine(design, strategy=strategy, budget=Budget(calls, time.monotonic() + 300), seed=0)


def test_a_uart_receiver_gets_frames() -> None:
    tb, rep = _engine("uart_rx", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    # Bytes arrived: the valid strobe rose and the data bits went both ways.
    assert _covered(rep.final, "o_valid:0->1")
    assert all(_covered(rep.final, f"o_data[{b}]:0->1") for b in range(8))
    assert "uart_rx_send(" in tb or "_send(" in tb
    assert rep.reproduced


def test_a_cpu_retires_instructions_past_0x100() -> None:
    tb, rep = _engine("tiny_cpu", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "mem_respond(" in tb
    # 64 instructions retired in a row after a reset (a trap stops the count): only a memory
    # that answers with decodable words gets there; random words trap within a few fetches.
    assert _covered(rep.final, "retired[6]:0->1")
    assert _covered(rep.final, "pc[8]:0->1")  # and the program counter went past 0x100
    assert rep.reproduced
    _rtb, rnd = _engine("tiny_cpu", 30, "random")
    assert rnd.final is not None
    assert rnd.final.status == Status.OK
    assert not _covered(rnd.final, "retired[6]:0->1"), "uniform random programs retired 64 instructions too"


def test_a_cpu_on_ahb_lite_retires_instructions_fetched_through_the_responder() -> None:
    tb, rep = _engine("ahb_cpu", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "ahb_respond(" in tb
    assert _covered(rep.final, "retired[6]:0->1")  # 64 decodable words fetched in a row
    assert _covered(rep.final, "pc[8]:0->1")
    assert rep.reproduced
    _rtb, rnd = _engine("ahb_cpu", 30, "random")
    assert rnd.final is not None
    assert not _covered(rnd.final, "retired[6]:0->1"), "uniform random programs retired 64 instructions too"


def test_an_ahb_lite_subordinate_is_driven_through_its_phases() -> None:
    tb, rep = _engine("ahb_regs", 60)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "ahb_write(" in tb
    assert _covered(rep.final, "unlocked:0->1")  # the key word written to the key register (0x1C)
    assert _covered(rep.final, "lane2_seen:0->1")  # a byte transfer on lane 2 (hsize 0)
    assert _covered(rep.final, "hresp_o:0->1")  # an address beyond the registers: ERROR
    assert rep.reproduced


def test_a_cpu_on_split_transaction_ports_retires_instructions() -> None:
    tb, rep = _engine("split_cpu", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "mem_i_respond(" in tb
    # 64 instructions retired (a trap stops the count; only decodable words get that far).
    assert _covered(rep.final, "retired_o[6]:0->1")
    assert _covered(rep.final, "mem_d_wr_o[0]:0->1")  # stores got through the data port


def test_a_uart_bridge_at_a_parameter_derived_period_performs_a_write_command() -> None:
    tb, rep = _engine("uart_cmd", 24)
    assert rep.final is not None
    assert rep.final.status == Status.OK, rep.final.detail
    assert "rx_send(128," in tb  # frames at the elaborated CLK_FREQ / UART_SPEED
    assert _covered(rep.final, "wr_o:0->1")  # 'W' addr data was parsed and performed
    assert all(_covered(rep.final, f"wr_addr_o[{b}]:0->1") for b in range(3))  # every address
    assert _covered(rep.final, "err_o:0->1")  # an address past the limit, or an unknown command
    assert _covered(rep.final, "tx:1->0")  # and the bridge replied
    assert rep.reproduced


def test_a_handshake_without_data_is_answered_with_no_memory_model() -> None:
    tb, rep = _engine("pwrup", 16)
    assert rep.final is not None
    assert rep.final.status == Status.OK, rep.final.detail
    assert "pwrup_respond(" in tb
    assert "bw_pwrup_mem" not in tb  # a request that carries no address gets no 1,024-word memory
    assert _covered(rep.final, "powered_o:0->1")  # the request was answered...
    assert _covered(rep.final, "powered_o:1->0")  # ...and the next one after 64 inputs too
    assert _covered(rep.final, "acc_o[7]:1->0")
    assert rep.reproduced


def test_a_valid_ready_sink_is_answered() -> None:
    tb, rep = _engine("vr_sink", 20)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "m_sink(" in tb
    assert _covered(rep.final, "sent[3]:0->1")  # at least eight words were taken
    assert rep.final.coverage is not None
    assert rep.final.coverage.overall == 100.0


def test_an_avalon_mm_agent_is_driven_through_its_registers_and_beats_random() -> None:
    tb, rep = _engine("avalon_regs", 40)
    _rtb, rnd = _engine("avalon_regs", 40, "random")
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "avs_s0_bus_write(" in tb
    assert _covered(rep.final, "unlocked:0->1")  # the key register's compared word was written
    assert _covered(rep.final, "limit[0]:1->0")  # ... and the limit it unlocks then
    assert rnd.final is not None
    assert rnd.final.coverage is not None
    assert rep.final.coverage is not None
    assert rep.final.coverage.overall > rnd.final.coverage.overall + 3, (rep.summary(), rnd.summary())


@pytest.mark.parametrize(("name", "want"), [("div_dnc", "DIDNOTCONVERGE when "), ("fatal_combo", "mode 3 is reserved")])
def test_failing_inputs_are_learned_and_the_engine_beats_random(name: str, want: str) -> None:
    _tb, rep = _engine(name, 40)
    _rtb, rnd = _engine(name, 40, "random")
    assert rep.final is not None, rep.summary()
    assert rep.final.status == Status.OK, rep.summary()
    assert rnd.final is not None
    assert rnd.final.coverage is not None
    assert rep.final.coverage is not None
    assert rep.final.coverage.overall >= rnd.final.coverage.overall, (rep.summary(), rnd.summary())
    assert rep.search is not None
    assert rep.search.failures
    assert want in rep.summary()
    assert rep.search.avoid, "no combination was learned"
    named = {k for rule in rep.search.avoid for k, _ in rule.args}
    assert named & ({"start", "divisor"} if name == "div_dnc" else {"en", "mode"})


def test_the_report_lists_interfaces_and_unclaimed_handshakes(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import run_main

    out = tmp_path / "run"
    assert run_main([str(DATA / "ahb_regs"), "--rounds", "0", "--sim-calls", "4", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    (found,) = data["interfaces"]["found"]
    assert (found["name"], found["kind"], found["protocol"]) == ("ahb", "ahb", "AHB-Lite")
    assert found["side"].startswith("design serves")
    assert found["ports"]["hreadyout"] == "hreadyout_o"
    assert data["interfaces"]["unrecognised_handshakes"] == []
    report = (out / "report.md").read_text()
    assert "## Interfaces" in report
    assert "| `ahb` | AHB-Lite (`ahb`) | design serves" in report


def test_an_i2c_master_reads_bytes_back_from_the_device_model() -> None:
    # forencich's I2C master (MIT, the public suite's copy): with the device on its lines the
    # engine's kept programs read bytes back and see refusals and another controller's traffic.
    public = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public" / "forencich__i2c_master"
    if not public.is_dir():
        pytest.skip(f"{public} is not here")
    tb, rep = run_engine(load_design(public), strategy="heuristic", budget=Budget(60, time.monotonic() + 300), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "i2c_respond(" in tb
    assert _covered(rep.final, "m_axis_data_tvalid:0->1")
    assert _covered(rep.final, "missed_ack:0->1")
    assert rep.reproduced


def test_an_i2c_target_is_addressed_written_and_read_by_the_other_controller() -> None:
    # i2c_regs answers only its own address (ADDRESS = 7'h2A) and refuses register numbers past 3:
    # the other controller on the bus addresses it, sets its pointer and writes and reads bytes.
    tb, rep = _engine("i2c_regs", 20)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "i2c_respond(" in tb
    assert "7'h2a" in tb  # the address from the parameter
    for point in ("writes[0]:0->1", "reads[0]:0->1", "reg0[7]:0->1", "reg0[7]:1->0"):
        assert _covered(rep.final, point), point
    assert rep.final.overall >= 90.0
    assert rep.reproduced


def test_the_engine_finds_a_write_payload_that_changes_while_it_waits() -> None:
    # Every trial runs the protocol checkers; the first trial that breaks a rule is kept as its
    # witness, so the final testbench breaks it again and the report lists the finding.
    from agent.program.sv_monitors import parse_findings

    _tb, rep = _engine("axil_logger", 40)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    rules = {f.rule for f in parse_findings(rep.final.log_tail)}
    assert "W: m_axi_wdata/m_axi_wstrb changed while m_axi_wvalid && !m_axi_wready" in rules
    assert rep.search is not None
    witnesses = [e for e in rep.search.entries if e.finding]
    assert witnesses
    assert all(e.finding.startswith("m_axi ") for e in witnesses)
    # Shown by a rough slave's long stall: the witness answers with latency >= 3.
    assert any(o.name == "respond" and o.num("latency") >= 3 for e in witnesses for o in e.program.ops)


def test_an_sd_controller_completes_card_initialisation_and_reads_a_block() -> None:
    # sd_spi only leaves reset's idle state when an SD card answers CMD0, CMD8, CMD55 + ACMD41
    # and CMD58 over SPI, and reads a block only from an initialised card (uniform random
    # inputs on its data line never initialise it: 51 % coverage at 30 calls).
    tb, rep = _engine("sd_spi", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert "spi_respond(" in tb
    assert _covered(rep.final, "ready:0->1")
    assert _covered(rep.final, "crc_ok:0->1")  # a 512-byte block with its CRC16
    assert rep.reproduced


def test_an_sd_controller_driven_by_command_words_initialises_the_card_and_reads_a_block() -> None:
    # sd_regs sends a card command only when software writes 0x40 + index to its command
    # register, refuses every command after an error until a word clears it (bit 15), and
    # reads a block only for CMD17 with its data flag (bit 11). Measured at 60 calls, seed 0:
    # 96.02 with the card sessions, 75.49 without them (the card never initialised), random
    # 52.60.
    tb, rep = _engine("sd_regs", 60)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert _covered(rep.final, "o_ready:0->1")  # CMD0, CMD8, CMD55 + ACMD41 in the card's order
    assert _covered(rep.final, "o_block_ok:0->1")  # a 512-byte block read with its CRC16
    assert "spi_respond(" in tb
    assert rep.reproduced


def test_an_i2c_slave_mode_serviced_by_software_receives_and_sends_bytes() -> None:
    # i2c_wb_slave acknowledges its address, then holds SCL until software writes CMD bit 1;
    # the other controller on the bus gives a transfer up after waiting 4,096 clocks. Measured
    # at 60 calls, seed 0: 96.52 with the serviced sessions, 79.60 without them (no data byte
    # either way), random 66.87.
    tb, rep = _engine("i2c_wb_slave", 60)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert _covered(rep.final, "rx_count[1]:0->1")  # bytes written to the target, each serviced
    assert _covered(rep.final, "tx_count[1]:0->1")  # bytes read from it, each loaded by software
    assert "i2c_respond(" in tb
    assert rep.reproduced


def test_a_flash_controller_programs_and_reads_back_through_the_flash_model() -> None:
    # spi_flash: JEDEC ID, erase, page program, status polling, read back; the flash model's
    # busy time and (rough) program errors make every poll and error path run.
    _tb, rep = _engine("spi_flash", 30)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert _covered(rep.final, "match:0->1")
    assert _covered(rep.final, "wip_seen:0->1")
    assert _covered(rep.final, "prog_error:0->1")


def test_a_serial_design_closes_with_a_long_rest_after_an_unchanged_search(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.heuristic import scenarios

    _, rep = _engine("slow_line", 30)
    assert rep.final is not None
    assert rep.search is not None
    labels = [t.label for t in rep.search.trials]
    assert labels[-2:] == ["scenario long rest 2^23", "scenario long rest 2^15"]
    # 2^21 quiet clocks under a period of 2^23: the change counter's bit 21 both ways, and the
    # baud counter borrowing through bit 26 from the reloaded 2^27
    assert all(_covered(rep.final, f"chg_counter[21]:{e}") for e in ("0->1", "1->0"))
    assert _covered(rep.final, "baud_counter[26]:1->0")
    # Played last, they leave the search the same course (a few calls shorter: theirs and the
    # chain's for them): the same trials before them.
    monkeypatch.setattr(scenarios, "closings", lambda t: [])
    _, without = _engine("slow_line", 30)
    assert without.search is not None
    assert without.final is not None
    first = labels.index("scenario long rest 2^23")
    before = [(t.label, t.covered) for t in without.search.trials]
    assert len(before) - 4 <= first < len(before)
    assert [(t.label, t.covered) for t in rep.search.trials][:first] == before[:first]
    assert not _covered(without.final, "chg_counter[21]:1->0")
