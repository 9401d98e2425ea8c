-- tpnak_storm.lua — TPNAK-storm detector.
--
--   ubdump -r FILE -q --audit --lua lua/tpnak_storm.lua [--lua-arg count=3] [--lua-arg window_us=1000]
--
-- Rule LAB-NAK-001 (warning): `count` TPNAKs (TPACK/TPNAK with RSPST = Completer Error, RSPINFO = 0,
-- §6.2.1 Table 6-2) on one RTP channel within `window_us` microseconds. One finding per storm, at
-- the frame of the TPNAK that completes it, with the related frame of the first TPNAK of the
-- window; the detector re-arms after a quiet window. Channels are the state engine's TP channel key
-- (ub.flows("tp")), so a TPNAK is counted on the channel of the data it refers to.
local rule = ub.rule{
    id = "LAB-NAK-001",
    severity = "warning",
    summary = "TPNAK storm on one TP channel",
    doc = "values: TPNAKs in the window, window in ns; related frame: first TPNAK of the window",
}
local n_max = math.tointeger(tonumber(ub.args.count or "3"))
local window = math.tointeger(tonumber(ub.args.window_us or "1000")) * 1000
assert(n_max and n_max >= 2 and window and window > 0, "tpnak_storm.lua: count >= 2, window_us > 0")

local is_nak = ub.filter('(ub.rtph.tpopcode == "TPACK/TPNAK" || ub.rtph.tpopcode == "TPACK-CC/TPNAK-CC") '
    .. '&& ub.rtph.rspst == "Completer Error (TPNAK)" && ub.rtph.rspinfo == 0')
local chans = ub.flows("tp", { max = 16384 })
local storms = 0

function on_packet(pkt)
    if not is_nak(pkt) then return end
    local c = chans[pkt]                 -- this channel's state table (created empty)
    local ring = c.ring or {}
    c.ring = ring
    local now = pkt.ts
    ring[#ring + 1] = { ts = now, frame = pkt.frame }
    while now - ring[1].ts > window do table.remove(ring, 1) end
    if c.storm and now - (c.last or now) > window then c.storm = false end
    c.last = now
    if #ring >= n_max and not c.storm then
        c.storm = true
        storms = storms + 1
        ub.report(rule, { pkt.frame, ring[1].frame },
            string.format("%d TPNAKs within %d us on %s", #ring, window // 1000, chans:key(pkt)),
            { #ring, window, key = "TP channel", keytext = chans:key(pkt) })
    end
end

function on_end()
    print(string.format("TPNAK storms: %d", storms))
end
