-- Display-filter parity in one tshark run (tests/t_filter_parity.sh, t_tshark_neigh.sh):
--   UB_FILTERS=FILE tshark -q -r CAP -X lua_script:tshark_multi.lua
-- one tap per filter line of FILE; prints "index<TAB>frames" (or "index<TAB>ERROR ...")
local sets, n = {}, 0
for line in io.lines(os.getenv("UB_FILTERS")) do
    n = n + 1
    local i = n
    local ok, l = pcall(Listener.new, "frame", line)
    if ok then
        sets[i] = {}
        function l.packet(pinfo) table.insert(sets[i], pinfo.number) end
    else
        sets[i] = "ERROR " .. tostring(l):gsub("\n", " ")
    end
end
local l0 = Listener.new("frame")
function l0.draw()
    for i = 1, n do
        local s = sets[i]
        io.stdout:write(i, "\t", type(s) == "table" and table.concat(s, " ") or s, "\n")
    end
end
