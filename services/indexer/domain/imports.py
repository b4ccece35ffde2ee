def resolve_imports(*a, **k): pass
def read_go_module(*a): pass
class FileIndex: pass
