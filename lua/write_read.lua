-- write_read.lua — write-then-read conformance scenario (ubreplay --scenario).
--
--   ubpeer --udp 127.0.0.1:0 --ready-file port &       # the reference responder (or a device)
--   ubreplay --udp 127.0.0.1:$(cat port) --scenario lua/write_read.lua [--var base=0x1000] [--var rounds=4]
--
-- Each round writes a 16-byte pattern at base + 64 × (round − 1) (RTP over UBoE: the runner converts
-- the frames to the output's framing), expects the TPACK of the Write and its TAACK, reads the bytes
-- back and checks that the Read_response carries exactly them. A missing or wrong answer has already
-- been raised as a finding by the runner (UB-SC-001 content, UB-SC-002 timing, UB-SC-003 none) at the
-- line of its expect(); the scenario then stops, since later rounds would only repeat the failure.
-- Different bytes are a finding of UB-SC-005 (check). Every packet both ways is also audited by the
-- state engine, so a responder that breaks a protocol rule fails the run too.
local base = ub.u64.parse(ub.args.base or "0x1000")
local rounds = math.tointeger(tonumber(ub.args.rounds or "4"))
assert(base and rounds and rounds >= 1, "write_read.lua: --var base=ADDR --var rounds=N (N >= 1)")

local psn, tassn = 0, 0
local function request(op, addr, len, data)
    psn, tassn = psn + 1, tassn + 1
    local t = { entry = "eth",
        { "eth", dst = "02:00:00:00:00:02", src = "02:00:00:00:00:01" },
        { "ipv4", src = "10.0.0.1", dst = "10.0.0.2" },
        { "udp", srcport = 49152 },
        { "rtph", last = 1, a = 1, srctpn = 0x100, dsttpn = 0x200, psn = psn, tpmsn = psn },
        { "btah", taopcode = op, ini_tassn = tassn, ini_rc_id = 0x10 },
        { "maetah", address = addr, tokenid = 0x5, length = len },
    }
    if data then t[#t + 1] = { "payload", data = data } end
    return t
end

local function pattern(round, n)
    local b = {}
    for k = 1, n do b[k] = string.char((round * 37 + k * 11) & 0xff) end
    return table.concat(b)
end

function scenario()
    for round = 1, rounds do
        local addr = base + (round - 1) * 64
        local data = pattern(round, 16)
        send(request("Write", addr, #data, data))
        expect(("ub.rtph.tpopcode == 2 && ub.rtph.rspst == 0 && ub.rtph.psn == %d"):format(psn), { label = "TPACK of the Write" })
        if not expect(('ub.atah.taopcode == "TAACK" && ub.atah.ini_tassn == %d'):format(tassn)) then return end
        send(request("Read", addr, #data))
        local rsp, why = expect(('ub.atah.taopcode == "Read_response" && ub.atah.ini_tassn == %d'):format(tassn))
        if not rsp then
            print(("round %d: no Read_response (%s)"):format(round, why))
            return
        end
        if check(rsp:get("ub.payload.data") == data, ("round %d: the Read_response carries other bytes"):format(round), rsp) then
            print(("round %d: %d bytes at %s written and read back"):format(round, #data, ub.u64.hex(addr)))
        end
    end
end
