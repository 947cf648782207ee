"""A device on a design's SPI lines: recognised from the line ports, played by the harness (pure).

A design that is an SPI controller drives a clock (`sck`, `sclk`, `spi_clk`), data out
(`mosi`, `sdo`, `copi`), a chip select (`cs_n`, `ss`; low selects, bit 0 of a vector) and
reads data in (`miso`, `sdi`, `cipo`).
The harness plays one of two devices on those lines (`sv_spi.py`), chosen by the design's
names:

- `sd`: an SD card in SPI mode, for a design or prefix named `sd`, `sdc`, `sdcard`, `sdspi`,
  `mmc`: 6-byte command frames answered after 1..8 idle bytes with R1 (and R3/R7's four
  bytes), the initialisation sequence (CMD0, CMD8, CMD55 + ACMD41 until ready, CMD58),
  block reads (data token, CRC16) and writes (data response, busy) of 512 bytes or what CMD16
  set;
- `spi_flash`: a serial NOR flash (JEDEC commands), for everything else: RDID, RDSR, WREN,
  WRSR, READ, FAST READ, page program, erase and a busy (WIP) time after them; an unknown
  command reads the memory from its pointer on, as a generic register device.

An SD card's slot may have a card-detect input (`i_card_detect`, `sd_cd_n`): the device holds
it at "present" while it is on.

Modes 0 and 3 (data sampled on the rising clock edge, changed on the falling one): what
flashes and SD cards use. Quad transfers (four data lines) are not modelled: a controller
whose data lines are quad buses (`o_qspi_dat[3:0]`) gets no device.
"""

from __future__ import annotations

import re

from agent.heuristic.stimulus import Layout, Signal
from agent.program.iface import Iface

CLOCK_WORDS = frozenset({"sck", "sclk", "spck", "spiclk", "qspiclk"})
"""Name words of an SPI clock output (also `clk` beside an `spi`/`qspi`/`sd`/`flash` word)."""

OUT_WORDS = frozenset({"mosi", "sdo", "copi", "dout", "sdout", "spido"})
"""Name words of the controller's data output."""

IN_WORDS = frozenset({"miso", "sdi", "cipo", "din", "sdin", "spidi"})
"""Name words of the controller's data input."""

SELECT_WORDS = frozenset({"cs", "csn", "csb", "ncs", "ss", "ssn", "nss", "ssel", "sel"})
"""Name words of a chip select (low selects)."""

QUAD_WORDS = frozenset({"dat", "data", "dq", "io"})
"""Name words of a quad bus's data lines (out and in on separate ports)."""

SPI_WORDS = frozenset({"spi", "qspi", "sd", "sdc", "sdcard", "sdspi", "mmc", "flash"})
"""Words that make a plain `clk`/`dout`/`din`/`dat` port an SPI line."""

SD_WORDS = frozenset({"sd", "sdc", "sdcard", "sdspi", "mmc", "sdhc"})
"""Words of a design's or its lines' names that make the device an SD card."""


DETECT_WORDS = frozenset({"detect", "det", "cd", "present", "cdn", "cdb"})
"""Name words of a card-detect input (`i_card_detect`, `sd_cd_n`): the card is in its slot."""


def words(name: str) -> list[str]:
    """The lower-case words of a port or module name (`o_SPI_Clk` -> o, spi, clk)."""
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def _role(s: Signal) -> str:
    """`sck`, `mosi`, `miso`, `cs`, `dat_o`, `dat_i`, or '' for a port that is none of them."""
    w = set(words(s.name))
    spi = bool(w & SPI_WORDS)
    if s.direction == "output":
        if s.width == 1 and (w & CLOCK_WORDS or ("clk" in w and spi)):
            return "sck"
        if s.width == 1 and w & OUT_WORDS and (spi or w & {"mosi", "copi"}):
            return "mosi"
        if w & SELECT_WORDS and (spi or w & {"cs", "csn", "ss", "ssn", "nss", "csb", "ncs"}):
            return "cs"
        if s.width in (2, 4) and w & QUAD_WORDS and spi:
            return "dat_o"
    else:
        if s.width == 1 and w & IN_WORDS and (spi or w & {"miso", "cipo"}):
            return "miso"
        if s.width in (2, 4) and w & QUAD_WORDS and spi:
            return "dat_i"
    return ""


def spi(layout: Layout, taken: set[str]) -> Iface | None:
    """The design's SPI controller lines as a device to answer (kind `sd` or `spi_flash`), else None.

    Roles: `sck`, `mosi`, `miso` (the harness drives it), and `cs` when there is one (without
    one the device is always selected). A controller whose data lines are quad buses only is
    not answered (see below).
    """
    roles: dict[str, str] = {}
    for s in sorted(layout.ports, key=lambda s: s.name):
        role = "" if s.name in taken or s.dims else _role(s)
        if role:
            roles.setdefault(role, s.name)
    # A quad controller (its data on `dat`/`dq` buses, a flash read in four-bit beats) would
    # need a quad device; the single-line one would answer only its status reads and cost the
    # testbench a hundred lines, so its lines stay plain inputs.
    if not all(r in roles for r in ("sck", "mosi", "miso")):
        return None
    roles.pop("dat_o", None)
    roles.pop("dat_i", None)
    named = {w for n in (layout.top, *roles.values()) for w in words(n)}
    kind = "sd" if named & SD_WORDS else "spi_flash"
    if kind == "sd":
        roles.update(_card_detect(layout, taken))
    return Iface("spi", kind, roles, 8)


def _card_detect(layout: Layout, taken: set[str]) -> dict[str, str]:
    """A card slot's detect input as `detect` (high: a card) or `detect_n` (low: a card); {} when none.

    A controller with one (ZipCPU's sdspi) refuses every command until the card has been
    present for a while; the device holds it at "present" while it is on.
    """
    for s in sorted(layout.ports, key=lambda s: s.name):
        w = words(s.name)
        if s.direction != "input" or s.width != 1 or s.dims or s.name in taken or not set(w) & DETECT_WORDS:
            continue
        low = w[-1] in ("n", "b", "cdn", "cdb") or s.name.lower().endswith("_n")
        return {"detect_n" if low else "detect": s.name}
    return {}
