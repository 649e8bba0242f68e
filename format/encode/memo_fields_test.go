package encode

import (
	"reflect"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestKeyFieldsCompared changes each field of a Key in turn and checks that
// identical and plain (memo.go) see the change, so that a field added to
// Key cannot silently count as the same between two bundles' keys.
func TestKeyFieldsCompared(t *testing.T) {
	// Fields identical need not compare, and why.
	notCompared := map[string]string{
		"Ciphertext": "never written by an Encoder: a Sealed key is refused, and Sealed is compared",
	}
	// The fields a plain key has: plain does not look at them.
	plainHas := map[string]bool{"Name": true, "Value": true, "Contributions": true, "Ciphertext": true}

	base := format.Key{Name: "k", Value: "v", Contributions: []format.Contribution{{}}}
	rt := reflect.TypeOf(base)
	for i := range rt.NumField() {
		name := rt.Field(i).Name
		a, b := base, base
		changeField(t, name, reflect.ValueOf(&b).Elem().Field(i))
		if _, ok := notCompared[name]; !ok && identical(&a, &b) {
			t.Errorf("identical does not compare Key.%s: compare it (memo.go), or say in this test why it need not", name)
		}
		if !plainHas[name] && plain(&b) {
			t.Errorf("plain does not look at Key.%s: a key with it set is not plain (memo.go)", name)
		}
	}
}

// changeField sets v, a field of a Key holding its zero value or the
// base key's, to something else.
func changeField(t *testing.T, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "changed")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Interface:
		v.Set(reflect.ValueOf("another value"))
	case reflect.Struct:
		if v.Type() != reflect.TypeOf(format.Merge{}) {
			t.Fatalf("Key.%s: a struct of type %s: teach changeField to change it", name, v.Type())
		}
		v.Set(reflect.ValueOf(format.Merge{Strategy: format.MergeDeep}))
	default:
		t.Fatalf("Key.%s: kind %s: teach changeField to change it", name, v.Kind())
	}
}
