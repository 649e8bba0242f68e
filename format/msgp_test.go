package format

import "testing"

func TestReaderIntegers(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"\x00", 0}, {"\x7f", 127}, {"\xff", -1}, {"\xe0", -32},
		{"\xcc\xff", 255}, {"\xcd\x01\x00", 256}, {"\xce\x00\x01\x00\x00", 65536},
		{"\xcf\x7f\xff\xff\xff\xff\xff\xff\xff", 1<<63 - 1},
		{"\xd0\x80", -128}, {"\xd1\x80\x00", -32768}, {"\xd2\x80\x00\x00\x00", -1 << 31},
		{"\xd3\x80\x00\x00\x00\x00\x00\x00\x00", -1 << 63},
	}
	for _, tt := range tests {
		r := &reader{s: tt.in}
		got, err := r.integer()
		if err != nil || got != tt.want || r.left() != 0 {
			t.Errorf("integer(%x) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "\xcc", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xa1a", "\xc0"} {
		r := &reader{s: in}
		if _, err := r.integer(); err == nil {
			t.Errorf("integer(%x) succeeded", in)
		}
	}
}
