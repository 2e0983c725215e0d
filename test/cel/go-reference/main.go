// The reference for the CEL differential test: evaluates a corpus of expressions with
// kube-apiserver v1.32.4's own CEL environments (k8s.io/apiserver/pkg/cel/environment with
// cel-go v0.22) and prints, per entry, the compile or evaluation error or the value, the runtime
// cost, the static cost estimate and whether the cost limit stopped evaluation.
//
// Input: JSON lines on stdin (see test/cel/differential/README.md for the format).
// Output: JSON lines on stdout, one per input line, in the same order.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Entry is one corpus line.
type Entry struct {
	ID   string `json:"id"`
	Expr string `json:"expr"`
	// Env is "new" (NewExpressionsEnv: what a CRD or policy being created may use, the default)
	// or "stored" (StoredExpressionsEnv: what an already stored expression may use).
	Env string `json:"env,omitempty"`
	// Vars declares variables with a CEL type ("int", "list(string)", "map(string, int)", "dyn", ...).
	Vars map[string]string `json:"vars,omitempty"`
	// Schema, when set, declares `self` and `oldSelf` with the type of this OpenAPI schema, as a
	// CRD's x-kubernetes-validations rule sees them, and sizes the cost estimate from it.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Bindings are tagged values (see encode) for Vars, plain JSON for self/oldSelf.
	Bindings map[string]json.RawMessage `json:"bindings,omitempty"`
	// CostLimit defaults to kube's per-call limit (1,000,000).
	CostLimit *uint64 `json:"costLimit,omitempty"`
}

type Estimate struct {
	Min uint64 `json:"min"`
	Max uint64 `json:"max"`
}

type Result struct {
	ID                string    `json:"id"`
	Phase             string    `json:"phase"` // "compile", "eval" or "value"
	Error             string    `json:"error,omitempty"`
	Value             any       `json:"value,omitempty"`
	Type              string    `json:"type,omitempty"`
	Cost              *uint64   `json:"cost,omitempty"`
	Estimate          *Estimate `json:"estimate,omitempty"`
	EstimateError     string    `json:"estimateError,omitempty"`
	CostLimitExceeded bool      `json:"costLimitExceeded,omitempty"`
}

// sizeEstimator is apiextensions-apiserver's (schema/cel/compilation.go), for every schema-typed root.
type sizeEstimator struct {
	roots map[string]*apiservercel.DeclType
}

func (c *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	currentNode, ok := c.roots[path[0]]
	if !ok {
		return nil
	}
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			if currentNode.ElemType == nil {
				return nil
			}
			currentNode = currentNode.ElemType
		case "@keys":
			if currentNode.KeyType == nil {
				return nil
			}
			currentNode = currentNode.KeyType
		default:
			field, ok := currentNode.Fields[name]
			if !ok || field.Type == nil {
				return nil
			}
			currentNode = field.Type
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(currentNode.MaxElements)}
}

func (c *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// parseType reads "int", "list(T)", "map(K, V)", "optional(T)" and the other scalar names.
func parseType(s string) (*cel.Type, string, error) {
	s = strings.TrimSpace(s)
	scalars := map[string]*cel.Type{
		"int": cel.IntType, "uint": cel.UintType, "double": cel.DoubleType, "string": cel.StringType,
		"bool": cel.BoolType, "bytes": cel.BytesType, "dyn": cel.DynType, "null": cel.NullType,
		"timestamp": cel.TimestampType, "duration": cel.DurationType,
	}
	for name, t := range scalars {
		if strings.HasPrefix(s, name) && (len(s) == len(name) || strings.ContainsAny(s[len(name):len(name)+1], ",)")) {
			return t, s[len(name):], nil
		}
	}
	for _, name := range []string{"list(", "map(", "optional("} {
		if !strings.HasPrefix(s, name) {
			continue
		}
		first, rest, err := parseType(s[len(name):])
		if err != nil {
			return nil, "", err
		}
		rest = strings.TrimSpace(rest)
		switch name {
		case "map(":
			if !strings.HasPrefix(rest, ",") {
				return nil, "", fmt.Errorf("bad map type %q", s)
			}
			second, rest2, err := parseType(rest[1:])
			if err != nil {
				return nil, "", err
			}
			rest2 = strings.TrimSpace(rest2)
			if !strings.HasPrefix(rest2, ")") {
				return nil, "", fmt.Errorf("bad map type %q", s)
			}
			return cel.MapType(first, second), rest2[1:], nil
		default:
			if !strings.HasPrefix(rest, ")") {
				return nil, "", fmt.Errorf("bad type %q", s)
			}
			if name == "list(" {
				return cel.ListType(first), rest[1:], nil
			}
			return cel.OptionalType(first), rest[1:], nil
		}
	}
	return nil, "", fmt.Errorf("unknown type %q", s)
}

// Tagged value: {"t": type, "v": value}.
type tagged struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v,omitempty"`
}

func decode(raw json.RawMessage) (ref.Val, error) {
	var tv tagged
	if err := json.Unmarshal(raw, &tv); err != nil {
		return nil, err
	}
	str := func() string {
		var s string
		_ = json.Unmarshal(tv.V, &s)
		return s
	}
	switch tv.T {
	case "null":
		return types.NullValue, nil
	case "bool":
		var b bool
		err := json.Unmarshal(tv.V, &b)
		return types.Bool(b), err
	case "int":
		n, err := strconv.ParseInt(str(), 10, 64)
		return types.Int(n), err
	case "uint":
		n, err := strconv.ParseUint(str(), 10, 64)
		return types.Uint(n), err
	case "double":
		f, err := strconv.ParseFloat(str(), 64)
		return types.Double(f), err
	case "string":
		return types.String(str()), nil
	case "bytes":
		b, err := base64.StdEncoding.DecodeString(str())
		return types.Bytes(b), err
	case "timestamp":
		t, err := time.Parse(time.RFC3339Nano, str())
		return types.Timestamp{Time: t.UTC()}, err
	case "duration":
		n, err := strconv.ParseInt(str(), 10, 64)
		return types.Duration{Duration: time.Duration(n)}, err
	case "list":
		var items []json.RawMessage
		if err := json.Unmarshal(tv.V, &items); err != nil {
			return nil, err
		}
		vals := make([]ref.Val, len(items))
		for i, it := range items {
			v, err := decode(it)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return types.NewRefValList(types.DefaultTypeAdapter, vals), nil
	case "map":
		var pairs [][2]json.RawMessage
		if err := json.Unmarshal(tv.V, &pairs); err != nil {
			return nil, err
		}
		m := map[ref.Val]ref.Val{}
		for _, p := range pairs {
			k, err := decode(p[0])
			if err != nil {
				return nil, err
			}
			v, err := decode(p[1])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, m), nil
	case "optional":
		if len(tv.V) == 0 {
			return types.OptionalNone, nil
		}
		v, err := decode(tv.V)
		return types.OptionalOf(v), err
	}
	return nil, fmt.Errorf("unknown tagged type %q", tv.T)
}

func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// encode gives a value's canonical tagged form; kube's own types are "opaque" with their text.
func encode(v ref.Val) any {
	switch x := v.(type) {
	case types.Null:
		return map[string]any{"t": "null"}
	case types.Bool:
		return map[string]any{"t": "bool", "v": bool(x)}
	case types.Int:
		return map[string]any{"t": "int", "v": strconv.FormatInt(int64(x), 10)}
	case types.Uint:
		return map[string]any{"t": "uint", "v": strconv.FormatUint(uint64(x), 10)}
	case types.Double:
		return map[string]any{"t": "double", "v": formatDouble(float64(x))}
	case types.String:
		return map[string]any{"t": "string", "v": string(x)}
	case types.Bytes:
		return map[string]any{"t": "bytes", "v": base64.StdEncoding.EncodeToString([]byte(x))}
	case types.Timestamp:
		return map[string]any{"t": "timestamp", "v": x.Time.UTC().Format(time.RFC3339Nano)}
	case types.Duration:
		return map[string]any{"t": "duration", "v": strconv.FormatInt(int64(x.Duration), 10)}
	case *types.Optional:
		if !x.HasValue() {
			return map[string]any{"t": "optional"}
		}
		return map[string]any{"t": "optional", "v": encode(x.GetValue())}
	case ref.Type:
		return map[string]any{"t": "type", "v": x.TypeName()}
	}
	if v.Type() == types.ErrType || types.IsUnknown(v) {
		return map[string]any{"t": "error", "v": fmt.Sprint(v)}
	}
	switch x := v.(type) {
	case traits.Lister:
		out := []any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			out = append(out, encode(it.Next()))
		}
		return map[string]any{"t": "list", "v": out}
	case traits.Mapper:
		pairs := [][2]any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			val, _ := x.Find(k)
			pairs = append(pairs, [2]any{encode(k), encode(val)})
		}
		sort.Slice(pairs, func(i, j int) bool { return mustJSON(pairs[i][0]) < mustJSON(pairs[j][0]) })
		return map[string]any{"t": "map", "v": pairs}
	}
	return map[string]any{"t": "opaque", "type": v.Type().TypeName(), "v": fmt.Sprint(v.Value())}
}

// unstructured decodes JSON as the apiserver does for objects: integers as int64, others float64.
func unstructured(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var obj any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	var convert func(any) any
	convert = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				return n
			}
			f, _ := x.Float64()
			return f
		case []any:
			for i := range x {
				x[i] = convert(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = convert(x[k])
			}
		}
		return v
	}
	return convert(obj), nil
}

func u64(n uint64) *uint64 { return &n }

func run(e Entry, envSet *environment.EnvSet) Result {
	res := Result{ID: e.ID}
	var envOpts []cel.EnvOption
	var declTypes []*apiservercel.DeclType
	roots := map[string]*apiservercel.DeclType{}
	activation := map[string]any{}
	var schemaAdaptor common.Schema
	if len(e.Schema) > 0 {
		var s spec.Schema
		if err := json.Unmarshal(e.Schema, &s); err != nil {
			return Result{ID: e.ID, Phase: "setup", Error: err.Error()}
		}
		schemaAdaptor = &openapi.Schema{Schema: &s}
		declType := common.SchemaDeclType(schemaAdaptor, false)
		if declType == nil {
			return Result{ID: e.ID, Phase: "setup", Error: "schema has no CEL type"}
		}
		declType = declType.MaybeAssignTypeName("selfType0")
		declTypes = append(declTypes, declType)
		envOpts = append(envOpts, cel.Variable("self", declType.CelType()), cel.Variable("oldSelf", declType.CelType()))
		roots["self"] = declType
		roots["oldSelf"] = declType
	}
	names := make([]string, 0, len(e.Vars))
	for name := range e.Vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t, rest, err := parseType(e.Vars[name])
		if err != nil || strings.TrimSpace(rest) != "" {
			return Result{ID: e.ID, Phase: "setup", Error: fmt.Sprintf("type of %s: %v", name, err)}
		}
		envOpts = append(envOpts, cel.Variable(name, t))
	}
	for name, raw := range e.Bindings {
		if schemaAdaptor != nil && (name == "self" || name == "oldSelf") {
			obj, err := unstructured(raw)
			if err != nil {
				return Result{ID: e.ID, Phase: "setup", Error: err.Error()}
			}
			activation[name] = common.UnstructuredToVal(obj, schemaAdaptor)
			continue
		}
		v, err := decode(raw)
		if err != nil {
			return Result{ID: e.ID, Phase: "setup", Error: fmt.Sprintf("binding %s: %v", name, err)}
		}
		activation[name] = v
	}
	extended, err := envSet.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        envOpts,
		DeclTypes:         declTypes,
	})
	if err != nil {
		return Result{ID: e.ID, Phase: "setup", Error: err.Error()}
	}
	env := extended.NewExpressionsEnv()
	if e.Env == "stored" {
		env = extended.StoredExpressionsEnv()
	}
	ast, issues := env.Compile(e.Expr)
	if issues != nil && issues.Err() != nil {
		res.Phase = "compile"
		res.Error = issues.String()
		return res
	}
	res.Type = cel.FormatCELType(ast.OutputType())
	limit := uint64(celconfig.PerCallLimit)
	if e.CostLimit != nil {
		limit = *e.CostLimit
	}
	estimator := &library.CostEstimator{SizeEstimator: &sizeEstimator{roots: roots}}
	prog, err := env.Program(ast, cel.CostLimit(limit), cel.CostTracking(estimator), cel.InterruptCheckFrequency(100))
	if err != nil {
		res.Phase = "compile"
		res.Error = "program instantiation failed: " + err.Error()
		return res
	}
	est, err := env.EstimateCost(ast, estimator)
	if err != nil {
		res.EstimateError = err.Error()
	} else {
		res.Estimate = &Estimate{Min: est.Min, Max: est.Max}
	}
	val, det, err := prog.Eval(activation)
	if det != nil && det.ActualCost() != nil {
		res.Cost = u64(*det.ActualCost())
	}
	if err != nil {
		res.Phase = "eval"
		res.Error = err.Error()
		res.CostLimitExceeded = strings.Contains(err.Error(), "actual cost limit exceeded")
		return res
	}
	res.Phase = "value"
	res.Value = encode(val)
	return res
}

func main() {
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			fmt.Fprintln(os.Stderr, "bad corpus line:", err)
			os.Exit(2)
		}
		res := func() (r Result) {
			defer func() {
				if p := recover(); p != nil {
					r = Result{ID: e.ID, Phase: "panic", Error: fmt.Sprint(p)}
				}
			}()
			return run(e, envSet)
		}()
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
