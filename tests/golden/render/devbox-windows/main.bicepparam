// Parameters of main.bicep for GPU pool `variant-devbox-windows` (rendered by gpuform from devbox-windows.yaml).
using 'main.bicep'

param location = 'westeurope'

param adminUsername = 'vizadmin'

// Never stored in a file: set GPUFORM_ADMIN_PASSWORD in the environment of the deployment.
param adminPassword = readEnvironmentVariable('GPUFORM_ADMIN_PASSWORD')
