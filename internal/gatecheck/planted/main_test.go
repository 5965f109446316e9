package main

import (
	"context"
	"testing"
)

// TestSteps: a spin task on n leaves does Work·n steps, and 1 + Slowdown times as many when
// planted; the loop's result depends on its step count alone.
func TestSteps(t *testing.T) {
	p := &SpinParams{Work: 1000, Slowdown: 0.1}
	defer func(was bool) { planted = was }(planted)
	planted = false
	if got := p.steps(7); got != 7000 {
		t.Errorf("baseline: %d steps, want 7000", got)
	}
	planted = true
	if got := p.steps(7); got != 7700 {
		t.Errorf("planted 10 %%: %d steps, want 7700", got)
	}
	ctx := context.Background()
	if a, b, c := spin(ctx, 7000), spin(ctx, 7000), spin(ctx, 7700); a != b || a == c || a == 0 {
		t.Errorf("spin(7000) = %d, %d; spin(7700) = %d", a, b, c)
	}
}
