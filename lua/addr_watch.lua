-- addr_watch.lua — a custom audit rule: flag writes into a watched address range.
--
--   ubdump -r FILE -q --audit --lua lua/addr_watch.lua --lua-arg lo=0x80001000 --lua-arg hi=0x80001fff
--
-- Rule LAB-ADDR-001 (error): a Write-family request (Write, Write_with_immediate, Write_with_notify,
-- Write_with_be, Writeback, Writeback_with_be) whose bytes [address, address + length) overlap the
-- inclusive range [lo, hi]. Addresses are full 64-bit values (ub.u64 compares them unsigned, so
-- ranges above 2^63 work). `length` is the packet's payload (each packet of a multi-packet Write
-- carries its own part, at its own MAETAH.Address), or MAETAH.Length when it has no payload.
-- Each finding carries the frame, a message, and the values {address, length}; it appears in the
-- text/JSON/SARIF/JUnit reports, fails the run under --fail-on error (exit status 1), and
-- `ubdump -G rules --lua lua/addr_watch.lua` lists the rule.
local rule = ub.rule{
    id = "LAB-ADDR-001",
    severity = "error",
    summary = "write into a watched address range",
    doc = "values: address, length; --lua-arg lo=/hi= give the inclusive range",
}

local lo = ub.u64.parse(ub.args.lo or "")
local hi = ub.u64.parse(ub.args.hi or "")
assert(lo and hi, "addr_watch.lua needs --lua-arg lo=ADDR --lua-arg hi=ADDR (decimal or 0x...)")
assert(ub.u64.le(lo, hi), "addr_watch.lua: lo must not be above hi")

local op = ub.field("ub.btah.taopcode")
local addr = ub.field("ub.maetah.address")
local len = ub.field("ub.maetah.length")
local payload = ub.field("ub.payload")

local writes = {}
for _, name in ipairs { "Write", "Write_with_immediate", "Write_with_notify", "Write_with_be",
                        "Writeback", "Writeback_with_be" } do
    writes[op:value(name)] = name
end

function on_packet(pkt)
    local o = op(pkt)
    local name = o and writes[o]
    if not name then return end
    local a = addr(pkt)
    if not a then return end
    local n = #(payload(pkt) or "")
    if n == 0 then n = len(pkt) or 0 end
    local last = n > 0 and a + (n - 1) or a          -- wraps like the hardware would: compare unsigned
    if ub.u64.le(a, hi) and ub.u64.ge(last, lo) then
        ub.report(rule, pkt, string.format("%s of %d bytes at %s overlaps [%s, %s]", name, n,
            ub.u64.hex(a, 16), ub.u64.hex(lo, 16), ub.u64.hex(hi, 16)), { a, n })
    end
end
