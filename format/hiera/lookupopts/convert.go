package lookupopts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/ptype"
)

// ParseConvertTo reads a lookup_options convert_to setting (a type, or an
// array of a type and arguments) for key. The type is any that package
// ptype reads ("Integer", "Array[String]", "Optional[Integer[0, 10]]");
// arguments must be strings, integers or booleans. Settings hieracc cannot
// apply ahead of time are refused here, so that a key using one fails with
// a clear message rather than answering differently from Puppet; a type
// Puppet cannot parse fails with Puppet's message.
func ParseConvertTo(key string, setting any) ([]format.Value, error) {
	var spec []format.Value
	switch s := setting.(type) {
	case nil:
		return nil, nil
	case []any:
		spec = s
	default:
		spec = []format.Value{s}
	}
	if len(spec) == 0 {
		return nil, nil
	}
	name, ok := spec[0].(string)
	if !ok {
		return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc reads convert_to only as a type name, optionally followed by arguments", key)
	}
	for _, a := range spec[1:] {
		switch a.(type) {
		case string, int64, bool:
		default:
			return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc reads only string, integer and boolean convert_to arguments", key)
		}
	}
	if name == "Sensitive" {
		return spec, nil
	}
	t, err := ptype.Parse(name)
	if strings.TrimSpace(name) == "" {
		err = errors.New("The expression <> is not a valid type specification.")
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "hieracc ") {
			return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc cannot apply convert_to '%s' ahead of time: it %s", key, name, strings.TrimPrefix(err.Error(), "hieracc "))
		}
		return nil, fmt.Errorf("Invalid data type in lookup_options for key '%s' could not parse '%s', error: '%s", key, name, err)
	}
	if refuse := unsupported(t, spec[1:]); refuse != "" {
		return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc cannot apply convert_to '%s' ahead of time: %s", key, name, refuse)
	}
	return spec, nil
}

// unsupported says why hieracc cannot apply new(t, value, args...), "" when
// it can.
func unsupported(t *ptype.Type, args []format.Value) string {
	switch hiera.ConvertTarget(t).Kind {
	case ptype.Sensitive:
		return "a Sensitive is applied only as convert_to Sensitive, without parameters"
	case ptype.String:
		if len(args) > 0 {
			return "String's format arguments are not supported"
		}
	case ptype.Hash, ptype.Struct:
		if len(args) > 0 {
			return "Hash's tree options are not supported"
		}
	}
	return ""
}
