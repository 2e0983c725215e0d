import json, copy, subprocess, os, sys
env = {}
for line in open('/tmp/kube-ref/env'):
    k, v = line.replace('export ','').strip().split('=',1); env[k]=v
def base():
    return {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.crdh.example.com"},
      "spec":{"group":"crdh.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
        "versions":[{"name":"v1","served":True,"storage":True,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}
def sch(c): return c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
def spec_props(c): return sch(c)["properties"]["spec"]["properties"]
cases = []
def case(name):
    def deco(f):
        c = base(); r = f(c); cases.append((name, r if r is not None else c)); return f
    return deco
def setp(path, value):
    def f(c):
        o = c
        for k in path[:-1]: o = o[k]
        if value is DEL: del o[path[-1]]
        else: o[path[-1]] = value
    return f
DEL = object()
V = ["spec","versions",0]
simple = [
 ("valid", lambda c: None),
 ("name mismatch", setp(["metadata","name"], "gadgets.crdh.example.com")),
 ("group missing", lambda c: (setp(["spec","group"], DEL)(c), setp(["metadata","name"],"widgets.")(c))),
 ("group without dot", lambda c: (setp(["spec","group"], "crdh")(c), setp(["metadata","name"],"widgets.crdh")(c))),
 ("group uppercase", lambda c: (setp(["spec","group"], "Crdh.example.com")(c), setp(["metadata","name"],"widgets.Crdh.example.com")(c))),
 ("scope missing", setp(["spec","scope"], DEL)),
 ("scope bad", setp(["spec","scope"], "Global")),
 ("plural missing", lambda c: (setp(["spec","names","plural"], DEL)(c), setp(["metadata","name"],".crdh.example.com")(c))),
 ("plural uppercase", lambda c: (setp(["spec","names","plural"], "Widgets")(c), setp(["metadata","name"],"Widgets.crdh.example.com")(c))),
 ("kind missing", setp(["spec","names","kind"], DEL)),
 ("kind lowercase-ish invalid", setp(["spec","names","kind"], "wid-get")),
 ("singular invalid", setp(["spec","names","singular"], "Widget")),
 ("listKind same as kind", setp(["spec","names","listKind"], "Widget")),
 ("listKind invalid", setp(["spec","names","listKind"], "widget list")),
 ("shortName invalid", setp(["spec","names","shortNames"], ["W D"])),
 ("category invalid", setp(["spec","names","categories"], ["a b"])),
 ("shortNames duplicate", setp(["spec","names","shortNames"], ["wd","wd"])),
 ("no versions", setp(["spec","versions"], [])),
 ("no storage version", setp(V+["storage"], False)),
 ("two storage versions", lambda c: c["spec"]["versions"].append({**copy.deepcopy(c["spec"]["versions"][0]), "name":"v2"})),
 ("duplicate version names", lambda c: c["spec"]["versions"].append({**copy.deepcopy(c["spec"]["versions"][0]), "storage": False})),
 ("version name invalid", setp(V+["name"], "V1")),
 ("no served version", setp(V+["served"], False)),
 ("schema missing", setp(V+["schema"], DEL)),
 ("openAPIV3Schema missing", setp(V+["schema"], {})),
 ("root type not object", lambda c: sch(c).__setitem__("type","string")),
 ("root type missing", lambda c: sch(c).pop("type")),
 ("property without type", lambda c: spec_props(c).__setitem__("foo", {})),
 ("nested property without type", lambda c: spec_props(c).__setitem__("foo", {"type":"object","properties":{"bar":{"description":"x"}}})),
 ("array without items", lambda c: spec_props(c).__setitem__("list", {"type":"array"})),
 ("bad type value", lambda c: spec_props(c).__setitem__("foo", {"type":"strin"})),
 ("uniqueItems true", lambda c: spec_props(c).__setitem__("list", {"type":"array","items":{"type":"string"},"uniqueItems":True})),
 ("ref forbidden", lambda c: spec_props(c).__setitem__("foo", {"type":"string","$ref":"#/definitions/x"})),
 ("additionalProperties false", lambda c: sch(c)["properties"]["spec"].__setitem__("additionalProperties", False)),
 ("properties and additionalProperties", lambda c: sch(c)["properties"]["spec"].__setitem__("additionalProperties", {"type":"string"})),
 ("metadata with extra field", lambda c: sch(c)["properties"].__setitem__("metadata", {"type":"object","properties":{"labels":{"type":"object"}}})),
 ("metadata name ok", lambda c: sch(c)["properties"].__setitem__("metadata", {"type":"object","properties":{"name":{"type":"string","maxLength":10}}})),
 ("default invalid type", lambda c: spec_props(c).__setitem__("replicas", {"type":"integer","default":"one"})),
 ("default violates max", lambda c: spec_props(c).__setitem__("replicas", {"type":"integer","default":5,"maximum":3})),
 ("default in metadata", lambda c: sch(c)["properties"].__setitem__("metadata", {"type":"object","properties":{"name":{"type":"string","default":"x"}}})),
 ("list-type map without keys", lambda c: spec_props(c).__setitem__("list", {"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"name":{"type":"string"}}}})),
 ("list-type bad value", lambda c: spec_props(c).__setitem__("list", {"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}})),
 ("list-map-keys on non-map", lambda c: spec_props(c).__setitem__("list", {"type":"array","x-kubernetes-list-type":"set","x-kubernetes-list-map-keys":["name"],"items":{"type":"string"}})),
 ("list-type set of objects", lambda c: spec_props(c).__setitem__("list", {"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","properties":{"a":{"type":"string"}}}})),
 ("list-type on non-array", lambda c: spec_props(c).__setitem__("foo", {"type":"string","x-kubernetes-list-type":"atomic"})),
 ("map key not required nor defaulted", lambda c: spec_props(c).__setitem__("list", {"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"}}}})),
 ("map-type bad", lambda c: spec_props(c).__setitem__("m", {"type":"object","x-kubernetes-map-type":"weird","additionalProperties":{"type":"string"}})),
 ("int-or-string with type", lambda c: spec_props(c).__setitem__("port", {"type":"string","x-kubernetes-int-or-string":True})),
 ("int-or-string ok", lambda c: spec_props(c).__setitem__("port", {"x-kubernetes-int-or-string":True})),
 ("embedded resource without preserve or props", lambda c: spec_props(c).__setitem__("tpl", {"type":"object","x-kubernetes-embedded-resource":True})),
 ("embedded resource not object", lambda c: spec_props(c).__setitem__("tpl", {"type":"string","x-kubernetes-embedded-resource":True})),
 ("preserve unknown false", lambda c: spec_props(c).__setitem__("raw", {"type":"object","x-kubernetes-preserve-unknown-fields":False})),
 ("nullable with type ok", lambda c: spec_props(c).__setitem__("n", {"type":"string","nullable":True})),
 ("cel rule does not compile", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"self.replicas >"}])),
 ("cel rule unknown field", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"self.nope > 1"}])),
 ("cel rule empty", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":""}])),
 ("cel rule message with newline", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","message":"a\nb"}])),
 ("cel bad reason", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","reason":"Bad"}])),
 ("cel fieldPath invalid", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","fieldPath":".nope"}])),
 ("cel messageExpression not string", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","messageExpression":"1"}])),
 ("cel oldSelf optional without oldSelf", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","optionalOldSelf":True}])),
 ("cel cost exceeded", lambda c: sch(c)["properties"]["spec"].__setitem__("properties", {"list":{"type":"array","items":{"type":"string"}}}) or sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"self.list.all(a, self.list.all(b, self.list.all(c, a == b && b == c)))"}])),
 ("printer column bad type", lambda c: c["spec"]["versions"][0].__setitem__("additionalPrinterColumns", [{"name":"R","type":"int","jsonPath":".spec.replicas"}])),
 ("printer column bad jsonPath", lambda c: c["spec"]["versions"][0].__setitem__("additionalPrinterColumns", [{"name":"R","type":"integer","jsonPath":"spec.replicas"}])),
 ("printer column missing name", lambda c: c["spec"]["versions"][0].__setitem__("additionalPrinterColumns", [{"type":"integer","jsonPath":".spec.replicas"}])),
 ("printer column bad format", lambda c: c["spec"]["versions"][0].__setitem__("additionalPrinterColumns", [{"name":"R","type":"integer","format":"weird","jsonPath":".spec.replicas"}])),
 ("printer column negative priority", lambda c: c["spec"]["versions"][0].__setitem__("additionalPrinterColumns", [{"name":"R","type":"integer","priority":-1,"jsonPath":".spec.replicas"}])),
 ("scale bad specReplicasPath", lambda c: c["spec"]["versions"][0].__setitem__("subresources", {"scale":{"specReplicasPath":"spec.replicas","statusReplicasPath":".status.replicas"}})),
 ("scale specReplicasPath not under spec", lambda c: c["spec"]["versions"][0].__setitem__("subresources", {"scale":{"specReplicasPath":".foo.replicas","statusReplicasPath":".status.replicas"}})),
 ("scale statusReplicasPath missing", lambda c: c["spec"]["versions"][0].__setitem__("subresources", {"scale":{"specReplicasPath":".spec.replicas"}})),
 ("deprecationWarning too long", lambda c: c["spec"]["versions"][0].update({"deprecated":True,"deprecationWarning":"x"*300})),
 ("conversion webhook without config", setp(["spec","conversion"], {"strategy":"Webhook"})),
 ("conversion bad strategy", setp(["spec","conversion"], {"strategy":"Magic"})),
 ("conversion None with webhook", setp(["spec","conversion"], {"strategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x.example.com"}}})),
 ("conversion webhook url http", setp(["spec","conversion"], {"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"http://x.example.com"}}})),
 ("conversion review versions missing", setp(["spec","conversion"], {"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://x.example.com"}}})),
 ("status subresource with status required", lambda c: None),
 ("preserveUnknownFields true", setp(["spec","preserveUnknownFields"], True)),
 ("selectableFields bad path", lambda c: c["spec"]["versions"][0].__setitem__("selectableFields", [{"jsonPath":".spec.nope"}])),
 ("selectableFields non-scalar", lambda c: c["spec"]["versions"][0].__setitem__("selectableFields", [{"jsonPath":".spec"}])),
 ("format unknown ok", lambda c: spec_props(c).__setitem__("f", {"type":"string","format":"weird"})),
 ("enum wrong type", lambda c: spec_props(c).__setitem__("e", {"type":"string","enum":[1]})),
 ("pattern invalid", lambda c: spec_props(c).__setitem__("p", {"type":"string","pattern":"(["})),
 ("allOf with types", lambda c: sch(c).__setitem__("allOf", [{"properties":{"x":{"type":"string"}}}])),
 ("allOf value validation ok", lambda c: sch(c)["properties"]["spec"].__setitem__("allOf", [{"properties":{"replicas":{"minimum":1}}}])),
 ("object default not object", lambda c: spec_props(c).__setitem__("a", {"type":"object","default":"x"})),
 ("list-map-keys not a property", lambda c: spec_props(c).__setitem__("a", {"type":"array","items":{"type":"object"},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]})),
 ("metadata name typed integer", lambda c: sch(c)["properties"].__setitem__("metadata", {"type":"object","properties":{"name":{"type":"integer"}}})),
 ("items empty list", lambda c: spec_props(c).__setitem__("a", {"type":"array","items":[]})),
 ("properties not a map", lambda c: sch(c)["properties"]["spec"].__setitem__("properties", "x")),
 ("type not a string", lambda c: spec_props(c).__setitem__("a", {"type":5})),
 ("required not a list", lambda c: sch(c)["properties"]["spec"].__setitem__("required", "replicas")),
 ("maxLength not a number", lambda c: spec_props(c).__setitem__("a", {"type":"string","maxLength":"y"})),
 ("validations not a list", lambda c: sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", "self.x")),
 ("property schema a number", lambda c: spec_props(c).__setitem__("a", 5)),
 ("messageExpression cost", lambda c: (spec_props(c).__setitem__("n", {"type":"integer"}), sch(c)["properties"]["spec"].__setitem__("x-kubernetes-validations", [{"rule":"true","messageExpression":"'got ' + string(self.n)"}]))),
 ("group with one dot ok", lambda c: None),
]
for name, f in simple:
    c = base(); r = f(c); cases.append((name, c))
out = []
import ssl, urllib.request
ctx = ssl.create_default_context(cafile=env['REF_CA'])
for name, c in cases:
    req = urllib.request.Request(env['REF_URL'] + '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', data=json.dumps(c).encode(), method='POST', headers={'Authorization':'Bearer '+env['REF_TOKEN'],'Content-Type':'application/json'})
    try:
        resp = urllib.request.urlopen(req, context=ctx); code = resp.status; body = json.loads(resp.read())
    except urllib.error.HTTPError as e:
        code = e.code; body = json.loads(e.read())
    entry = {"name": name, "crd": c, "code": code}
    if code >= 400:
        entry["message"] = body.get("message"); entry["causes"] = [{k: x.get(k) for k in ("reason","field")} for x in body.get("details",{}).get("causes",[])]
    out.append(entry)
    print(code, name, '|', entry.get("message","")[:300])
json.dump(out, open(sys.argv[1],'w'), indent=1)
