-- Wireshark / tshark Lua tap (Wireshark's own Lua 5.2, not ubscope's `ub` module): the ubscope
-- plugin registers every schema field as an hf, so Field.new sees them like any other protocol's.
--
--   tshark -q -X lua_script:lua/wireshark_psn_tap.lua -r captures/audit_rtp_lossy.pcapng
--
-- prints one line per packet with an RTPH: "frame <n> psn <p> tpopcode <name>", then a summary.
-- (tests/t_lua_tshark.sh runs it and compares with ubdump -T fields.)
local f_psn = Field.new("ub.rtph.psn")
local f_op = Field.new("ub.rtph.tpopcode")

local tap = Listener.new("frame", "ub.rtph")
local count, data, acks = 0, 0, 0

function tap.packet(pinfo, tvb)
    local psn, op = f_psn(), f_op()
    if not psn then return end
    count = count + 1
    -- the tpopcode's display text carries its value name ("Reliable TP data (0x01)" style)
    local opv = op and op.value or -1
    if opv == 1 then data = data + 1 else acks = acks + 1 end
    print(string.format("frame %d psn %d tpopcode %d", pinfo.number, psn.value, opv))
end

function tap.draw()
    print(string.format("rtph packets %d data %d acks %d", count, data, acks))
end
