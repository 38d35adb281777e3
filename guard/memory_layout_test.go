package guard

import (
	"reflect"
	"testing"
)

// TestMemoryRequestsHoldNoPointers: the request table, which keeps every
// request's verdict for RequestRetention, holds no pointers, so that the
// garbage collector never scans it however busy the store.
func TestMemoryRequestsHoldNoPointers(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[memRequestKey](), reflect.TypeFor[memRequest]()} {
		if p := pointerIn(typ); p != "" {
			t.Errorf("%v holds a pointer: %s", typ, p)
		}
	}
}

// pointerIn names a field of typ that is or holds a pointer, or "".
func pointerIn(typ reflect.Type) string {
	switch typ.Kind() {
	case reflect.Struct:
		for i := range typ.NumField() {
			if p := pointerIn(typ.Field(i).Type); p != "" {
				return typ.Field(i).Name + "." + p
			}
		}
		return ""
	case reflect.Array:
		return pointerIn(typ.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return ""
	}
	return typ.String()
}
