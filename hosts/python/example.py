# cd hosts/python && python example.py ../../filestore.wasm   (see docs/embedding.md#python)
import json, sys
from filestore_host import Filestore, MemoryVolume, ToolError, ToolHost, VolumeError, results_mount

filestore = Filestore(sys.argv[1])  # compiled on the first run, then cached; one session per conversation

class Frozen(MemoryVolume):  # a volume of your own: any object with the volume methods
    def write(self, path, content, options):
        raise VolumeError("read-only", "this volume is frozen")

def weather(request):  # a tool handler: validated arguments in, any JSON value out
    if request["arguments"]["city"] == "Atlantis":
        raise ToolError("not-found", "no such city")
    return {"city": request["arguments"]["city"], "sky": "clear"}

session = filestore.session(
    [{"point": "/notes", "volume": Frozen({"/todo.md": "- ship the Python host\n"})},
     {"point": "/scratch", "volume": MemoryVolume()},
     results_mount()],
    tools=ToolHost(handlers={"weather": weather}),
)
print(session.call("filestore_read", {"path": "/notes/todo.md"})["text"])
try:
    session.call("filestore_write", {"path": "/notes/todo.md", "content": "x"})
except Exception as e:
    print(e)  # error[read-only]: /notes/todo.md: this volume is frozen
session.load_config([{"name": "tools.yaml", "text": "kind: tool\nname: forecast\ntype: weather\n"
                      "description: The forecast.\nparameters:\n  - {name: city, type: string, description: The city.}\n"}])
print(json.dumps(session.invoke("forecast", {"city": "Basel"}, tool_call_id="call-1")["envelope"]))
session.close()
