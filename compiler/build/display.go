package build

// DisplayPaths returns how to print a path that compile recorded (in a
// bundle's sources and errors: "env/data/common.yaml", inside the
// compiler's own file system) as the user gave the folder holding it:
// "data/common.yaml" for --env ., "control/data/common.yaml" for --env
// control. cfg names the folders as compile was given them (Env, Modules,
// Global, Mounts; the other fields are not used), and they must exist. A
// path in none of them is returned as it is. Bundles keep their own paths,
// which do not depend on where the control repo is checked out; this maps
// them at print time.
func (cfg Config) DisplayPaths() (func(string) string, error) {
	c := Config{Env: cfg.Env, Modules: cfg.Modules, Global: cfg.Global, Mounts: cfg.Mounts}
	_, fsys, _, err := c.input()
	if err != nil {
		return nil, err
	}
	return fsys.Display, nil
}
