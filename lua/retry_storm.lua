-- retry_storm.lua — a retry storm on one VL (a traffic pattern for ubreplay).
--
--   ubreplay -i va --raw flit --scenario lua/retry_storm.lua --var vl=2 --var copies=8 --var rounds=4 \
--            --save storm.pcapng                       # ubpeer -i vb --raw flit answers on the far side
--
-- Flit-framed records, so the LPH (and its VL) is on the wire. One RTP channel per VL 0..3 (TPNs
-- 0x10 + VL, same endpoints). Each round sends one 64-byte Write per VL; on the storm VL every Write
-- then goes out `copies` more times: the same PSN and INI_TASSN with BTAH Retry = 1 — what a
-- requester whose retry timer fires too early produces, a TP retransmission that is also a
-- transaction-layer retry. The responder must absorb it: each copy is a TP duplicate (re-acknowledged,
-- not delivered again, §6.4.2), so every Write is answered by exactly one TAACK on every VL, and
-- the other VLs keep being served. A second TAACK for a Write, or a missing one, is a finding at the
-- line of the expectation (the wait for a second one: --var quiet=SECONDS, default 0.005, on top of
-- twice the first one's latency). At the end the script prints what it sent per VL.
local storm_vl = math.tointeger(tonumber(ub.args.vl or "2"))
local copies = math.tointeger(tonumber(ub.args.copies or "8"))
local rounds = math.tointeger(tonumber(ub.args.rounds or "4"))
local quiet = tonumber(ub.args.quiet or "0.005")   -- seconds a second TAACK is waited for (see below)
assert(storm_vl and storm_vl >= 0 and storm_vl <= 3, "retry_storm.lua: --var vl=0..3")
assert(copies and copies >= 1 and rounds and rounds >= 1, "retry_storm.lua: --var copies=N --var rounds=N")
assert(quiet and quiet >= 0, "retry_storm.lua: --var quiet=SECONDS")

local function write(vl, round, retry)
    return { entry = "flit",
        { "lph", vl = vl },
        { "nth24", scna = 0x010203, dcna = 0x0a0b0c },
        { "rtph", last = 1, a = 1, srctpn = 0x10 + vl, dsttpn = 0x20 + vl, psn = round, tpmsn = round },
        { "btah", taopcode = "Write", ini_tassn = 16 * round + vl, ini_rc_id = 0x40 + vl, retry = retry and 1 or 0 },
        { "maetah", address = 0x100000 * (vl + 1) + 64 * round, tokenid = 0x5, length = 64 },
        { "payload", inc = 64 },
    }
end

function scenario()
    local sent = { [0] = 0, 0, 0, 0 }
    for round = 1, rounds do
        for vl = 0, 3 do
            send(write(vl, round, false))
            sent[vl] = sent[vl] + 1
            if vl == storm_vl then
                for _ = 1, copies do
                    send(write(vl, round, true))
                    sent[vl] = sent[vl] + 1
                end
            end
        end
        local storm_lat = 0
        for vl = 0, 3 do
            local a = expect(('ub.atah.taopcode == "TAACK" && ub.atah.ini_tassn == %d && ub.lph.vl == %d'):format(16 * round + vl, vl),
                { label = ("TAACK of round %d on VL %d"):format(round, vl) })
            if a and vl == storm_vl then storm_lat = a.latency end
        end
        -- the copies must not be executed again: no second TAACK for the storm Write. The window follows
        -- the responder: as long again as its first answer took, plus `quiet` seconds (from the last send,
        -- so an answer that came before this line is judged too)
        expect_none(('ub.atah.taopcode == "TAACK" && ub.atah.ini_tassn == %d'):format(16 * round + storm_vl),
            { within = 2 * storm_lat / 1e9 + quiet })
    end
    for vl = 0, 3 do print(("VL %d: %d Writes sent"):format(vl, sent[vl])) end
end
