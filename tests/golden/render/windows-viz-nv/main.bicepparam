// Parameters of main.bicep for GPU pool `cad-viz` (rendered by gpuform from windows-viz-nv.yaml).
using 'main.bicep'

param location = 'westeurope'

param adminUsername = 'cadadmin'

// Never stored in a file: set GPUFORM_ADMIN_PASSWORD in the environment of the deployment.
param adminPassword = readEnvironmentVariable('GPUFORM_ADMIN_PASSWORD')
