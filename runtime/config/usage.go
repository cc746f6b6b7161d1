package config

import (
	"github.com/codexhost/codexhost/model"
)

// Usage is the [usage] table: optional prices that turn token counts into an estimated cost.
//
//	[usage.prices."gpt-5.1"]
//	input = 1.25          # per million uncached input tokens
//	cached = 0.125        # per million cached input tokens
//	output = 10.0         # per million output tokens (reasoning included)
//
// A model without a price gets no cost: nothing is assumed.
type Usage struct {
	Prices map[string]UsagePrice `toml:"prices,omitempty"`
}

// UsagePrice is one model's price per million tokens, in one currency of the user's choice.
type UsagePrice struct {
	Input  float64 `toml:"input"`
	Cached float64 `toml:"cached"`
	Output float64 `toml:"output"`
}

// PriceBook looks models up in the configured prices; nil when none is set.
func (c *Config) PriceBook() model.PriceBook {
	if c == nil || len(c.Usage.Prices) == 0 {
		return nil
	}
	prices := c.Usage.Prices
	return func(name string) (model.Price, bool) {
		p, ok := prices[name]
		if !ok || name == "" {
			return model.Price{}, false
		}
		return model.Price{Input: p.Input, CachedInput: p.Cached, Output: p.Output}, true
	}
}

func (c *Config) validateUsage() error {
	for name, p := range c.Usage.Prices {
		if name == "" || p.Input < 0 || p.Cached < 0 || p.Output < 0 {
			return model.Errorf(model.CodeInvalidArgument, "name a model and give prices of 0 or more per million tokens",
				"config: usage.prices.%q is invalid", name)
		}
	}
	return nil
}
