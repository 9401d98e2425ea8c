-- bench: bench/lua/latency2.lua as a Wireshark Lua tap (tshark -q -X lua_script:...): the same two
-- fields per packet through Field.new, the same table update.
local op = Field.new("ub.btah.taopcode")
local sn = Field.new("ub.btah.ini_tassn")
local sent, n = {}, 0
local tap = Listener.new("frame", "ub")
function tap.packet(pinfo, tvb)
    local o, s = op(), sn()
    if o then
        sent[s.value] = pinfo.abs_ts
        n = n + 1
    end
end
function tap.draw() print("requests", n) end
