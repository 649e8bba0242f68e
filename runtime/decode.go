package runtime

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// DecodeError is a value that cannot be stored in the Go value Decode or a
// typed getter was given. It names the key, where in the value, and the
// types; never the value, which may be a secret.
type DecodeError struct {
	Key  string       // the key looked up; "" for DecodeValue
	Path string       // where in the value, as a JSON Pointer ("/users/0/uid"); "" for the whole
	Got  string       // the value's Puppet type: String, Integer, Hash, ...
	Want reflect.Type // the Go type it was to be stored in
	Why  string       // more, when the types alone do not say (out of range)
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("runtime: ")
	if e.Key != "" {
		b.WriteString("key " + strconv.Quote(e.Key))
		if e.Path != "" {
			b.WriteString(" at " + e.Path)
		}
		b.WriteString(": ")
	} else if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	fmt.Fprintf(&b, "cannot decode %s into %v", e.Got, e.Want)
	if e.Why != "" {
		b.WriteString(": " + e.Why)
	}
	return b.String()
}

// Decode looks key up, as Lookup does, and stores its value in the value
// v points to, as encoding/json's Unmarshal stores JSON:
//
//   - a hash into a struct (fields matched by their `json` tag, else by
//     name ignoring case; other keys ignored) or a map whose keys are
//     strings, integers or any;
//   - an array into a slice or an array;
//   - Integer into any integer type (in range), Integer or Float into a
//     float type, String into a string or an encoding.TextUnmarshaler,
//     Boolean into a bool;
//   - undef leaves the target as it is, except pointers, maps, slices and
//     interfaces, which become nil;
//   - anything into an interface{}: the value itself (a hash stays a
//     *format.Hash, in order, shared with the bundle).
//
// Errors from the lookup are returned as they are; a value that does not
// fit is a *DecodeError.
func (b *Bundle) Decode(key string, v any) error {
	val, err := b.Lookup(key)
	if err != nil {
		return err
	}
	return decodeInto(key, val, v)
}

// DecodeValue stores a value, as from LookupWith, in the value v points
// to, as Decode does.
func DecodeValue(value, v any) error { return decodeInto("", value, v) }

func decodeInto(key string, val, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("runtime: Decode needs a non-nil pointer, not %T", v)
	}
	d := decoder{key: key}
	return d.value(val, rv.Elem(), "")
}

type decoder struct{ key string }

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func (d *decoder) fail(val any, rv reflect.Value, path, why string) error {
	return &DecodeError{Key: d.key, Path: path, Got: ruby.TypeName(val), Want: rv.Type(), Why: why}
}

func (d *decoder) value(val any, rv reflect.Value, path string) error {
	if val == nil {
		switch rv.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			rv.SetZero()
		}
		return nil
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return d.value(val, rv.Elem(), path)
	}
	if s, ok := val.(string); ok && rv.CanAddr() && rv.Addr().Type().Implements(textUnmarshaler) {
		if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return d.fail(val, rv, path, err.Error())
		}
		return nil
	}
	switch rv.Kind() {
	case reflect.Interface:
		if rv.NumMethod() != 0 {
			return d.fail(val, rv, path, "")
		}
		rv.Set(reflect.ValueOf(val))
		return nil
	case reflect.Bool:
		if x, ok := val.(bool); ok {
			rv.SetBool(x)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if x, ok := val.(int64); ok {
			if rv.OverflowInt(x) {
				return d.fail(val, rv, path, "out of range")
			}
			rv.SetInt(x)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if x, ok := val.(int64); ok {
			if x < 0 || rv.OverflowUint(uint64(x)) {
				return d.fail(val, rv, path, "out of range")
			}
			rv.SetUint(uint64(x))
			return nil
		}
	case reflect.Float32, reflect.Float64:
		switch x := val.(type) {
		case float64:
			rv.SetFloat(x)
			return nil
		case int64:
			rv.SetFloat(float64(x))
			return nil
		}
	case reflect.String:
		if x, ok := val.(string); ok {
			rv.SetString(x)
			return nil
		}
	case reflect.Slice:
		if a, ok := val.([]any); ok {
			s := reflect.MakeSlice(rv.Type(), len(a), len(a))
			for i, e := range a {
				if err := d.value(e, s.Index(i), path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			rv.Set(s)
			return nil
		}
	case reflect.Array:
		if a, ok := val.([]any); ok {
			for i := 0; i < rv.Len(); i++ {
				if i >= len(a) {
					rv.Index(i).SetZero()
					continue
				}
				if err := d.value(a[i], rv.Index(i), path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case reflect.Map:
		if h, ok := val.(*format.Hash); ok {
			return d.hashToMap(h, rv, path)
		}
	case reflect.Struct:
		if h, ok := val.(*format.Hash); ok {
			return d.hashToStruct(h, rv, path)
		}
	}
	return d.fail(val, rv, path, "")
}

func (d *decoder) hashToMap(h *format.Hash, rv reflect.Value, path string) error {
	t := rv.Type()
	m := reflect.MakeMapWithSize(t, h.Len())
	for k, e := range h.All() {
		kv := reflect.New(t.Key()).Elem()
		if err := d.value(k, kv, path+"/"+pointerToken(k)+" (key)"); err != nil {
			return err
		}
		ev := reflect.New(t.Elem()).Elem()
		if err := d.value(e, ev, path+"/"+pointerToken(k)); err != nil {
			return err
		}
		m.SetMapIndex(kv, ev)
	}
	rv.Set(m)
	return nil
}

func (d *decoder) hashToStruct(h *format.Hash, rv reflect.Value, path string) error {
	fields := reflect.VisibleFields(rv.Type())
	for k, e := range h.All() {
		name, ok := k.(string)
		if !ok {
			continue
		}
		f, ok := findField(fields, name)
		if !ok {
			continue
		}
		fv, err := rv.FieldByIndexErr(f.Index)
		if err != nil { // a nil embedded pointer: allocate it
			for i := 1; i <= len(f.Index); i++ {
				p := rv.FieldByIndex(f.Index[:i-1]).Field(f.Index[i-1])
				if p.Kind() == reflect.Pointer && p.IsNil() {
					p.Set(reflect.New(p.Type().Elem()))
				}
			}
			fv = rv.FieldByIndex(f.Index)
		}
		if err := d.value(e, fv, path+"/"+pointerToken(k)); err != nil {
			return err
		}
	}
	return nil
}

// findField finds the field for a hash key as encoding/json does: an exact
// `json` name or field name first, then one equal ignoring case.
func findField(fields []reflect.StructField, key string) (reflect.StructField, bool) {
	var fold *reflect.StructField
	for i := range fields {
		f := &fields[i]
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			tagName, _, _ := strings.Cut(tag, ",")
			if tagName == "-" && !strings.Contains(tag, ",") {
				continue
			}
			if tagName != "" {
				name = tagName
			}
		}
		if name == key {
			return *f, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold = f
		}
	}
	if fold != nil {
		return *fold, true
	}
	return reflect.StructField{}, false
}

// pointerToken is a hash key as a JSON Pointer token: a scalar key named
// as format.Hash.MarshalJSON names it (Ruby's to_s).
func pointerToken(k any) string {
	s := ""
	switch k := k.(type) {
	case string:
		s = k
	case int64:
		s = strconv.FormatInt(k, 10)
	case bool:
		s = strconv.FormatBool(k)
	case float64:
		s = ruby.Float(k)
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// LookupString returns the value of key, which must be a String.
func (b *Bundle) LookupString(key string) (string, error) {
	var s string
	return s, b.typed(key, &s)
}

// LookupInt returns the value of key, which must be an Integer.
func (b *Bundle) LookupInt(key string) (int64, error) {
	var i int64
	return i, b.typed(key, &i)
}

// LookupFloat returns the value of key, which must be a Float or an Integer.
func (b *Bundle) LookupFloat(key string) (float64, error) {
	var f float64
	return f, b.typed(key, &f)
}

// LookupBool returns the value of key, which must be a Boolean.
func (b *Bundle) LookupBool(key string) (bool, error) {
	var x bool
	return x, b.typed(key, &x)
}

// LookupStrings returns the value of key, which must be an Array of Strings.
func (b *Bundle) LookupStrings(key string) ([]string, error) {
	var s []string
	return s, b.typed(key, &s)
}

// LookupHash returns the value of key, which must be a Hash (in its order,
// shared with the bundle).
func (b *Bundle) LookupHash(key string) (*format.Hash, error) {
	v, err := b.Lookup(key)
	if err != nil {
		return nil, err
	}
	h, ok := v.(*format.Hash)
	if !ok {
		return nil, &DecodeError{Key: key, Got: ruby.TypeName(v), Want: reflect.TypeFor[*format.Hash]()}
	}
	return h, nil
}

// typed is Decode for the getters, where undef is a type error too.
func (b *Bundle) typed(key string, p any) error {
	v, err := b.Lookup(key)
	if err != nil {
		return err
	}
	if v == nil {
		return &DecodeError{Key: key, Got: "Undef", Want: reflect.TypeOf(p).Elem()}
	}
	return decodeInto(key, v, p)
}
