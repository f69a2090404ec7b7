package served

import (
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
)

// ConfigFor is the client configuration of entry k (0 the first) of role
// in m, served as spec says: its settings with the defaults, and the API
// key read through getenv from the variable server_api_key_env names. The
// key is held in memory only; what names the role in config.json and the
// cache keys is Name, which holds neither the key nor its variable. A
// variable that is not set is an error naming models.json and the field.
// With replicas (the entry's servers), URLs lists them. The caller sets
// Store and ParseReply.
func ConfigFor(m *models.Manifest, role models.Role, k int, spec models.RoleSpec, getenv func(string) string) (Config, error) {
	s := spec.ServerSettings()
	cfg := Config{Role: string(role), Server: s, URLs: spec.ServerURLs()}
	if role == models.RoleLMReader || role == models.RoleVLMReader || role == models.RoleScreenReader {
		w, err := letters.LoadWording(m.Dir)
		if err != nil {
			return cfg, err
		}
		cfg.Wording = w
	}
	if k > 0 {
		cfg.Role = fmt.Sprintf("%s#%d", role, k+1)
	}
	if s.APIKeyEnv != "" {
		if getenv != nil {
			cfg.APIKey = getenv(s.APIKeyEnv)
		}
		if cfg.APIKey == "" {
			return cfg, fmt.Errorf("%s: roles.%s: server_api_key_env names %s, which is not set in the environment",
				filepath.Join(m.Dir, models.ManifestFile), role, s.APIKeyEnv)
		}
	}
	return cfg, nil
}
