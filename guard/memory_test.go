package guard_test

import (
	"testing"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

func memoryFactory(t *testing.T) func(*testing.T) guard.Store {
	s := guard.NewMemoryStore()
	t.Cleanup(func() { s.Close() })
	return func(*testing.T) guard.Store { return s }
}

func TestMemoryConformance(t *testing.T) { storetest.Run(t, memoryFactory) }

func TestMemoryModel(t *testing.T) { storetest.RunModel(t, memoryFactory) }
