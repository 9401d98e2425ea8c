-- tpnak_recovery.lua — TPNAK recovery scenario against ubpeer (or a device).
--
--   ubpeer --udp 127.0.0.1:0 --ready-file port &
--   ubreplay --udp 127.0.0.1:$(cat port) --scenario lua/tpnak_recovery.lua
--
-- Four Writes on one RTP channel (PSN 1..4); the third is lost on the way (send fault "drop"). The
-- receiver must answer the out-of-order PSN 4 with one TPNAK naming PSN 3 (GoBackN, §6.4.2.2); the
-- scenario then goes back N (resends PSN 3 and 4) and expects the cumulative TPACK of PSN 4 and one
-- TAACK per Write — and no second TAACK for any of them. A receiver that acknowledges the gap
-- instead, NAKs the wrong PSN, or answers twice fails the scenario at the line of that expectation.
local function write(psn)
    return { entry = "eth",
        { "eth", dst = "02:00:00:00:00:02", src = "02:00:00:00:00:01" },
        { "ipv4", src = "10.0.0.1", dst = "10.0.0.2" },
        { "udp", srcport = 49153 },
        { "rtph", last = 1, srctpn = 0x300, dsttpn = 0x400, psn = psn, tpmsn = psn },
        { "btah", taopcode = "Write", ini_tassn = psn, ini_rc_id = 0x11 },
        { "maetah", address = 0x2000 + 64 * psn, tokenid = 0x5, length = 8 },
        { "payload", inc = 8 },
    }
end
local NAK = 'ub.rtph.tpopcode == 2 && ub.rtph.rspst == "Completer Error (TPNAK)"'

function scenario()
    send(write(1))
    send(write(2))
    expect("ub.rtph.tpopcode == 2 && ub.rtph.rspst == 0 && ub.rtph.psn == 2", { label = "TPACK of PSN 2" })
    send(write(3), { fault = "drop" })   -- lost on the way: the receiver never sees PSN 3
    send(write(4))
    local nak, why = expect(NAK .. " && ub.rtph.psn == 3", { label = "TPNAK for the lost PSN 3" })
    if not nak then
        print("no TPNAK for PSN 3: " .. why)
        return
    end
    print(("TPNAK for PSN 3 after %d us"):format(nak.latency // 1000))
    -- go back N: everything from the NAKed PSN again, in order
    send(write(3))
    send(write(4))
    expect("ub.rtph.tpopcode == 2 && ub.rtph.rspst == 0 && ub.rtph.psn == 4", { label = "TPACK after the recovery" })
    for t = 1, 4 do
        expect(('ub.atah.taopcode == "TAACK" && ub.atah.ini_tassn == %d'):format(t), { label = "TAACK " .. t })
    end
    -- exactly one answer per Write, and only one TPNAK per loss episode
    expect_none('ub.atah.taopcode == "TAACK"', { within = 0.02 })
    expect_none(NAK, { within = 0.001, ref = now() / 1e9 })
    print("recovered: 4 Writes acknowledged once each")
end
