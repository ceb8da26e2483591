// GPU pool `variant-devbox-spoke`, rendered by gpuform from lz-devbox-spoke.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-devbox-spoke'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'dev'
  'project': 'p'
  'team': 't'
}

// ---------------------------------------------------------------- network (landing zone)
// The pool joins the platform team's subnet: its NSG, route table and egress apply. This
// template creates no VNet, subnet, NSG, NAT gateway or route table. An `existing` resource in
// another resource group takes `scope: resourceGroup(subscription, group)` (Bicep, "Existing
// resources": "set the scope property"); the scale set's NICs must be in the subnet's
// subscription (Learn, "Create, change, or delete a network interface").

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' existing = {
  name: 'vnet-lz-dev-weu'
  scope: resourceGroup('7c1f2e3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f', 'rg-lz-dev-network')

  resource workloadSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }

  resource privateEndpointSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }
}

// ---------------------------------------------------------------- identity
// The pool's user-assigned identity and every role assignment of the deployment, each scoped
// to one resource with a deterministic name: guid(scope, principal, role).

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: 'id-variant-devbox-spoke'
  location: location
  tags: tags
}

// Key Vault Secrets User: The pool's identity reads secrets from the vault.
resource identitySecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identity.id, '4633458b-17de-408a-b874-0445c86b69e6')
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity reads secrets from the vault.'
  }
}

// Monitoring Metrics Publisher: The pool's identity publishes GPU telemetry through the data collection rule.
resource identityGpuDcrPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4e42-8a64-420c390055eb')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity publishes GPU telemetry through the data collection rule.'
  }
}

// ---------------------------------------------------------------- key vault and encryption
// RBAC authorization, soft delete, purge protection and a firewall that denies by default.

// Globally unique and stable per resource group: at most 24 characters.
var vaultName = 'kv-variant-${uniqueString(resourceGroup().id)}'

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: vaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForTemplateDeployment: false
    enabledForDiskEncryption: false
    publicNetworkAccess: 'Disabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

// The vault is reachable only through this private endpoint and its private DNS zone.
resource vaultPrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-devbox-spoke-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-devbox-spoke-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-devbox-spoke-vault'
        properties: {
          privateLinkServiceId: vault.id
          groupIds: [
            'vault'
          ]
        }
      }
    ]
  }
  // privateDnsZones.mode: policy: the landing zone's DeployIfNotExists policy adds the zone
  // group and the DNS record; this template creates no zone and no zone group.
}

// ---------------------------------------------------------------- dev box
// autoShutdown on one instance: a standalone VM, Standard_NC4as_T4_v3, image ubuntu-22.04, that is
// stopped (deallocated) at 19:00 and started at 08:00 (W. Europe Standard Time). Deallocation keeps
// the OS and data disks (home directory, notebooks, the installed driver); a stopped VM pays
// only for its disks. No autoscale setting: there is nothing to scale.

resource vmNic 'Microsoft.Network/networkInterfaces@2025-05-01' = {
  name: 'nic-vm-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    // No public IP: reach the box over the spec's inbound rules (VPN, peering, Bastion).
    enableAcceleratedNetworking: true
    enableIPForwarding: false
    ipConfigurations: [
      {
        name: 'ipconfig1'
        properties: {
          primary: true
          privateIPAllocationMethod: 'Dynamic'
          subnet: {
            id: vnet::workloadSubnet.id
          }
        }
      }
    ]
  }
}

resource vm 'Microsoft.Compute/virtualMachines@2025-11-01' = {
  // checkov:skip=CKV_AZURE_50: the GPU driver is installed by the NVIDIA/AMD VM extension (Microsoft.HpcCompute); a GPU dev box without it has no usable GPU
  name: 'vm-variant-devbox-spoke'
  location: location
  tags: tags
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    hardwareProfile: {
      vmSize: 'Standard_NC4as_T4_v3'
    }
    osProfile: {
      computerName: 'variant-devbox-spoke'
      adminUsername: adminUsername
      linuxConfiguration: {
        disablePasswordAuthentication: true
        provisionVMAgent: true
        ssh: {
          publicKeys: [
            {
              path: '/home/${adminUsername}/.ssh/authorized_keys'
              keyData: sshPublicKey
            }
          ]
        }
      }
      allowExtensionOperations: true
    }
    storageProfile: {
      imageReference: {
        publisher: 'Canonical'
        offer: '0001-com-ubuntu-server-jammy'
        sku: '22_04-lts-gen2'
        version: 'latest'
      }
      osDisk: {
        name: 'osdisk-vm-variant-devbox-spoke'
        createOption: 'FromImage'
        caching: 'ReadWrite'
        diskSizeGB: 128
        managedDisk: {
          storageAccountType: 'Premium_LRS'
        }
        // Kept even if the VM is deleted; stopping never touches disks.
        deleteOption: 'Detach'
      }
    }
    securityProfile: {
      encryptionAtHost: true
      // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
      securityType: 'Standard'
    }
    networkProfile: {
      networkInterfaces: [
        {
          id: vmNic.id
          properties: {
            primary: true
            deleteOption: 'Detach'
          }
        }
      ]
    }
    diagnosticsProfile: {
      // Boot diagnostics in managed storage.
      bootDiagnostics: {
        enabled: true
      }
    }
  }
}

// GPU driver: cuda (NvidiaGpuDriverLinux), CUDA 12.8
resource vmExtension0 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'NvidiaGpuDriverLinux'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.HpcCompute'
    type: 'NvidiaGpuDriverLinux'
    typeHandlerVersion: '1.6'
    autoUpgradeMinorVersion: true
    settings: {}
  }
}

// GPU collector: the script cloud-init runs on scale sets (gzip + base64, run by /bin/sh), which writes /usr/local/lib/gpuform/gpuform-gpu and enables the systemd units gpuform-gpu-collect.timer (every minute, /var/log/gpuform/gpu-*.json) and gpuform-gpu-health.service (127.0.0.1:8711).
resource vmExtension1 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'GpuCollector'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Extensions'
    type: 'CustomScript'
    typeHandlerVersion: '2.1'
    autoUpgradeMinorVersion: true
    settings: {
      script: 'H4sIAAAAAAAC/719fXfbtpL3//oUKHv8lEwkWXaSvijVvevabuvbOPZjO2m7qlahJcpmLZEqSdlxs/nu+5sZgAQpUnbau9ueE0sUMAAG8z4D8PPPti/DaDu9bn2urparWZws+uqH0zdqEs/nwSSLE+VGt+E09DvpIlRxNAmUrxZhtMoC1fmH2r71k+15fLWtO9PfzpPu72kc0c97f66SQB3HUUiQ9q6CKPMwkh9NVXYdqOvAn2fXKoimyziMMn62t1zOw4mfhYDwo/79fRZEKT1YJvFlkCp3Z/erbg//7/S//mpnx+u20iBTnWDVCqM08+dz1ZmqzkL1vnrxQm2vUprixJ9vz8NLM9G1mbcwpvpHQ2vzt4O/6ttvvwCGvj85Ox4fnnz/Revzz7gT4XF5n13H0bMCmVVcJlhrkARTdXlvmrxUetLydDKPV9NOCIy1VbKK6FF6n2bBYoplfg7IStmT0bDV4S+nh/sXhwdqKNv13/5iOuLWtf+VN9K1IHY0xG4WLoLE66NpoP51fvJazUN8WgYJrwnbFTeDryWLX/Hf8fHBAVMHFhf4vGDe9HU6aQbuTv3MNwsnqkhW86CtMNz34TxItwm8xxNk2D8sVxfBPFgEWXI/3n+lMv9yHrxsBu+rt8fq7jpOA15oFsdzNfPDedpWmFt2DTJJr+O7VM2CO0FGSk8jFWapSsM/QdZ+2m6Gf5eEGWiY0KrpP4nvlHue+dkqVZ8NlBPfOB4TBTDUbQb0+u3RwdFeXxX82VV7xwd9ha1nbnXPTvYX6svu+5fqMsY4vIvptb8MUq+tgnkaNANP4slCgMRzUKwKF/4Vur2U9U7iVZSBXoF8QvHp/pG6xOSBK0whollIhw1YCMEpq0wF+AvwjGWNmXf0pbMI0zSMrt4RdlKWGGCS+1Tj7L67xglpkNwGBPpvSJYNRJeLHCx6fg++2O311AfHAiowaR8Dp68c+XrvfAQxgS5pCs3g534KsvIXSzQMQVpJkF7zovVy2zyc8ybS3x0VE97uQlCpuxFyvsQvUpWEk2tCI7AMKlG779+riZ8kYZAygviXl/ghiqMO/ehHKUh8wybGq/lUGNlP1ZvoJorvwNlRnKl8plpqvYqvUnUUgYYY/0sf2HcXwvDY5i52sDsN5uFtkNy/5NkYyUb7Gk4CTD8ApSdxtIB0aCuS+CI9AB3icTnH5LEt/iwDPQU+rVTwaQEDAy/jNJPlMmHRXO8DGoWohESake1Hr384PL8YH74+OD05en2hnlZ/OTt5c3Go3A8kfo6mH9Wg2uBg/6ytPqQZELTAz+uwzy/ODveOPWYGnpK/DDvAAFNkpe3e6dH47eHZ+dHJ6zZhm5kZm0c8Ec+UTwJzgbVV+x3v/TL+7teLw3MSSTyQry4DP2GmuwkiNWOpBskOrgOSwykwEWb3yq0A2n91dPj6Ynx0gOFX0zCABllf0d6bA7TaP/RAwvGi+uvFyU+Hr8dvzl4xzYreI0UE2eyzUNd77UGKqOe73wA+JvcClAieSCDAQ8gc2eAzEuedPf7skihTO+CRtnquSEjdkZRGHxAbjAHaY95fkSChCC3oC8CfkcpgTruK8SHfiQh8owmoqy7wQJAFmFGAHWJZBcZCz/s7MGIgVH6xaVVfkNxcLEnh5nLJXSYhGCADg0PrhFOPRsixdnxwTtgyxE6Evs4YgmktCTHGzJ9k6ctcwIZZQezE7PdAhzKjEnp53K5sZWcFhIWpyMgURhBYU7n+KovpS0Bc+oZa/CktiO5kGmhG9NPAuQDewLufzrmkN0mXhxMsLVi0LRrcOwWPHB9enB3tgxmp8yKAXrbXFNPe0S9vj79Ic92daUkH6nJJ+zK2oCJZHlDrXHAdmo3D0kvD7p+8fg0DDNwptE07jalGGe96FGlTBcIAuPLU0+q0tTBhlCT+5IYUUhZj8ZiG2UoIZn8RpEt/IkJfzKaupYKOIOmvrjNCeNE03z6W1KkGCGiP5H9ZX879ZL9r/i8voYH3+bec84mztdWZLytSBumADUadsli+LtMefghSpl3GPw+BNil2ksUFmWjYPyIS5lLwvJEYRF8J6CsieQKFZRMEN1WrlBi8wJRw8ylb8+oZyY1o6ieAFF4mPliITACIHVJW6s0lbKGV2Dtk+intBPQtU54seSJdkCzpQ3VYcAN2EqSVev0cYfg7fnXyw/jgCOrDfnh+sXdxWH7MIuL7o1eHxaN/nXynH1k09vrkZ+UenZ+or7/s7ag3F/te0QHWWxkozMZjetJthSDiJFOQYgG5A+b71Ty+NJ+vs2zZZdsrMY/IADef49R8SvLuaTy5CbL82+oStD4J0rwl/B3z0R51lcyB/26QJHFSebb0k7TaLgn+WAGz+dNVOG21/v+bw7NfIRzcFtkvDoHH5i6W7RB+2fs2NWoT57RXhZgjqddeBIs4ue+CUKbmcxbDa2uTAAsS2O4Ji8e2I5CXMeRJd5r4d+1gMpFJp91VNImTBLIgmHZvY9AlaFbDmSZk+4y19ndaXkvTAGYbp10tP7tXQeY6NZTitJVT9bocr5WTzANQ8nYMB9RqwRC1dhcnN/MYlp4LeUH6ldVgulqSkE/BmiBttfDvxYoXHbpaXKINROXv8SU1EDYgddlmOQ5GDq6AplZOsxummbepTnGboGOePx0eno4P9n49B5Dd1i9HB/iLTSFJDDS7ifP67dlxX/0STtVv7vC/vNGT38B17m/Tpx56t1rTYAZZcOd6fd7CWfgesqN5PmApdKOW4UwaSz/2ngLQQ5TzTTf/APm/pA8ud8BCtn7tbC06W9OLrR/7W8f9rfP/dDyQLnTiJHBbtrGd/RlGs3iQg6J//gQWu6tskjeUCTUOT8urBVCMuQgnCXxf6KzpoGfQAmy7E0QgZIWwvIqlLoGigoW7umUbtsaSeGIMCQ+TZ3CRrLDpGawq8xGj47fBs55XRduyKx8m8RQNIV2yKVrqT+Cklvg1k2AJ6Xlyfki81bYncSGwD98vQ+h0j8zlYG1z4NAB/yAm7Ikb5ASwWri3ep2O4+wZImZ9U3jaUJT75285IvCaKJmU6PD19t6ojT9QPeerJUmdYEoPtGOkeKKjLsAy+Ftg7pYoIly63jpi9TRnYLoMU7IX/dafrwKGttacZqOXorkrX06E8WR5rUoHomBWhfyFrWl0diODlHAxTd0CKafGenTPl3G2fRZcreZ+4rEVzdak0c4bjGEikMk1KWwg9zKOsxwt/Fz4jrzE7u/Q966l+hyaDceQNPulyWQDm+Ya0qnBMdaN3v1WNTKh4mUQufiJaWdWbmAhj2bRJanozgoqLgDwUupANHVfI+pipz2L5XzoSvoATffQymFykbwsJBVhC8RK9hG6r9HPh491lPgHhimr1e6Z/HXxuE1RCjBmOvjgHOt9pghIBkZ3PlYQUwGDr4wqfC9kwi7jLCnjjKlnYOEsaUQ5Fnzn1OGdO09XiyXHENtq5tWIbP8TtqLAmnDKZDX1jQ43HJNMICdIfo1JIUE+Dp1CkDgjmcJClFUKz3xyDV21/+ZgT70VQP3f0ifusNf5pjuCqmJgHm0l0f1A9YRhmfGtKS26V0m8Wro73HQhjcBiMs/34XQsNomLKNskGJMfXHA46Ujo9yjLveWbIImCOTnNijuIy5AEt2GMwJ/4a1CmHBgE+r/6pv38a2gyw9TSZ1DMskRgFssVk6nZPgNl1iVPxvVKwlNvmN6vGm6BWkLfofN7DPz480k2J87o3PC/Mf0LJ4q/dKK4s4Q5nzijvOdT6trp8BRIadDfETMUT4rRiwaXusvappP6FGDQaikewkDpzmB2IvLv1u7ocGTv55yIm7rCcnfajojFlHWMC386/+0muB9AeHskuz9Xnb/5H4dyOY7std4iFHZyRtaVqwmYkIVgM4SL9iE2SCPdgo03GPjbiBdvLyfh9jQgdUD2m3E7NgAxTRhKvMy2KUyNrpglDyBTBACn936n19t1yIuj4LQPfE4QZCVDlaMWgNhXvfe9Z2oaprB87slLzxIKNiCgdAZxBm/t9OwEfP/VTg94BcBdpQ0MeKbkBU8myCvA9KfEDjzvDISQeRICocjCF+rHg+Oj7YNT9pdjNYP1T/4E8lcY+DkIHDkPksPUuEVWOC1h/9Xe+fmhYJnmR0ulsQ2Czo/haZ/9QA2Gwq4gSuQj4JkI7dIXeChkLNKD28RfFD+Qt1J8YyfFadtgsMLpapKRD1S0W0UhpHU4LZ6It2KcFX7MGrndGmkJg70dw0BPXYiRaS4zIQ846II9eCc/vKskEfp5csHEB+hHGY8UFwJunC3IRQuZNT2x2PEzyIlEFnmoXfrHLZkRuavrPHE8S4yXpFFZIpX6AzqhlCcOAA3GwW2NiILKAq5d7/GjMLk2DzJ5zCBNMlHkEOI80SqwjaFbEj+yPLbmJoDsJ1lKE3UrFOqVwUUkIXdsiRVpSiAhN6Ytc4mqCkJ4R195+0/3Ln5sG7tTkbSBfY18Kngz4dgfTE2dBMUP1JoDLQjc5EKA0q+FumFKIFhVQUJ9xR7qguvDzCA+DZYIyqlhaR+MtEF7QHe8UdnrKe9ZmyNuno3NKePQNAtTUmvu0jNPSX6kqbts05dfxic/ebVG4rJVb97TqqumBtafh6A5ocwZwARiigSgW2CrS+JhW/cG6rtXXSQKd7s7nR2IOWTu+UuB0AZ13YSubi59tITwNljBa1QsO+N0HG/YG23U7RpCbtaQXTgmQcQatYQTzpdM48mKg24gDZ/FCOhJPNTcl+uqV0h0g/4CUFFAUQuS0+lNuFySx+7P0xjxjyBq6VzjvbqmoOIlRW0DSS0t0mB+S3UKzvDnvbPXyH6MVLfbdRBukJjhkAb7QB6XRCjJyMJCcnRPA1LniTF3ae4H8kgzNxF4CB/qmroG8OpIDwXWqjUJogFpGDRyhh+cBwTAmhQEujAFPZkuYllj+UzjDMP+KN+fB3zTJnETpsY/dDFUW7kIy2IjpiH0aD0zoFkDO8AOGVN3tuyLrde5cGwzHM0OJfTjy98hUzgBSu2LLLnHm+JAaY21BzPEpo0+YloUQDZslBZcUVkCuxQ8+WLu2muhPyKBcvC5R8YbVAVDU/PqvXvr+/CKKeGKNphHKs/oSk+HJY79PJ+KA8uGrEWjtW9p90oBkMiUE2znJQGzMJhzxtfX0ZG+ggWFKRhUkr30wWFYwGK3C0EAEyLjz+Jful8ikU6zYtQy5n2dHHlZRFQcRFQcbgatLwkBUhIN+L9dQ75EWHitMhmvvhviD/MNyF5r74bk5HBkxvM2R2zW+mKRsh956GcNAAdptBQkFvMaSH4ZTm5I8TxhDVYWd7MwSTlL9Y5/fKdcOAYQMnDTUk9yXiS2ij0s6U5Oz4eSpk/L+Jzm36jhjWlV5tYC8Tdewy5VvFZjyRkCtMVEZBI61LpWLEQNGKJ4Y07N+ucc74/ZG67HYSos+88kbcAKY0oUuuRdtFmbFHvg0i9QrCQIEfxKU7iTXlGaIxnMbaq4wB+WQ2JBS2CcKoJ0pVW+L7lHCZgmkEBjgrkEmmWGm6CC5EkHhXAsK8icRE1CNa2geJFekSNCI2IZ1KWspKkkLHXXgihDRD1d9AXtMvT0SqOvvHyojJAM/a2po7awPh3OY5xg2A9XQxZRo76yxFzNUmxUSO8SKoY7I48lzHAkwoe6c2j/L41AP22GT4KSdqhkoOlf7sj11549jbigEbUbL1gRF37uLy6nvrrCzPQcLTlBMGShzGML3QJC14q2aZcJLUUCynenSvaVX0vcqYOB9J+f8p7o1vStCZL81gQHyTCAYcm1AJE4+E7I5BzYOE+PUYnemP1AgrSpleNZ1Afsdn2YadG0nDqhqbhrHhSz7drTH5arI8oFDnKs1jV5g0ThgKWLENP6PggyKKGIKdbCeA1/QWAQyqT9wk9gRI7Z/a7rZlVfnAbJBKbsoMDlioQM4elq9n7sI9ZwiyC9ILD0k3ypA3/Mmc03SHIeh99ZkBFPGOcgKAc65rBCM4gL2qkNMGQnG4FcFEnVfQuElWslINdxliIBISus/BZMG5Z4Si7yAWzZnwXwWgOWe+3ax66jIyaQM5zDHst378HmkxUoNsrGn9jNB08CY+O/OFpj+5pHh5PJmyI7PTBpIeLXtcQQHtZAOGARomPWQtgiVbQFVriCVHFS/bmS/67bun0E1w14Eq7lFl59ElT0cK64WSj/Fc2dW78i95X7AeHiZNqDUfsBbsJHogkOUZgHH70HVfcIIYdSUE9mrn2Gsq7WubFkaimQR/gfpodWMSWMkRnr3gyfw5Frq1tPDDp8Mt5Elwqs0krMCmPe2FEhxoIjZhPDQqBjGl6R6Vp1O4zpV9moJheospJ/ty2Sb2i9FcJ7WfLc9PZ6NWgvN6jTfZ9iE0gtCiJ82AfePytQSXLTKFDymJ23Z3vHisWtFr3K/Q5JIkstkrxu6kKivqnfv1edyqI261KtBN9wuFkdHTysOXWPfSrOQmY5pEQCkYf9/Fw//wR1ymiiYAEVhrlbjJeHtKWRmIzuksjkJ9tqp/f86xdfffmgyjSAZK9LkOTRBlDrirNWV/D6rLbI5AcRRIT6XecoPOXu06qb2pF6NW0eo10epXUnTYptX/SZOmc1qH5I/OV1OEEkGCE3qrpj6Mr9mWfcAGNPVOmndn6cpnyUMhTxIIQpP6v/bW1Hroyl6IL3S55zoexOLGeTUn2geQ6Elk+ndLloiiiRj5x8kXIVFQf50m182ueUJlVXK9BKdp8rvjga07mQQZENKmfqdOaW+pCoJbkiM83BC3qVGWRgKhn4wMjAyi0Y31L/ThY05QHNU6NpuN+an7sOzWgHp0C0AZn/tBkmftDL/zZHfG3wYri29fUCNkdVPYnnkraeIOk/OWM0IC/FnK9x6lvqwyuD7xHubgB2LKbRwNmaUpwJ/2oCSqvHglwkaoznD9rKFW8Wy9kRiph7Tu0gW8oVJFrEW8OkpSdFSPrzvI544kf5WDxHGHSBVGgpd+av5gjc+0jmZl5blw4v/ZDrwREfC+6orMnUNFnQU6IIKfyVozDXMNgpLcUUIUeb1g2SR+jShm1+YIvN9trnp2r21+wt1+G1Gre1YdN0uk6xnaK2Ukq89VlP0hE4wQXlhzgU7D5EGzXbvqWsTNIDm18gNzeIhUstzi94jgSQMewH5RCeIFw8AWuDDQIuEzn9IXOXVYIydIH4NCAbKYgmgODnNeIcY53GgYQuF342ua6Qj7g8nj4flmNYDq1wrb5FrgSEyxYUkyuRqabSIiCLnN8lnR1okGTG0iY81IRfqYzVQGgMuPo0NP4ZGzSWHSqNRwNnzXVAz/VUtuyLFq88QEXG5myBOa93NzNxttKXORb7IE2y5135lZIJZjPl9CbQB2Q69mKokX6sFVNpvDL51K67oB8L1f3/cwnAqHyKEKUcinDYked5i+sTxXRicoNoaBD7RjZYSN1Ky/gEyjkPPuy/6PVGm7lViyjaulyXUpkTIc2r1ZpWj3zgXMQQn/CWcwF/AcmSHnpXN6tme5AHxJdTq6ByR45FZIUEuqslVWCXd7xOMbO3qqci2xbfVLbMbBcLGGlabmA2bO3HktFIMzTlz1zXVWcz6pK3SqHgSTlZUS2TrrMljW34PpwCaVSIaCri6osSGyModhUlx+PhNCb3RNkDB9TPRz34OR0S8LPBJL1tR7GUquIDZSRTkykpO+FFJZ4VSIE5jhblAs9SLozPx1PNySorRSTKEmtGw0zy/BJ1ZEefGpvKh7bjjaqSk8h5xvmonZ2aaqBqdt0sqtaBbxY79F+9I1+SPqa0fEa5j8a27NjPhrujxhbsyM+Gzxpa1LjnlBudDZ83jVp2yaXxi82Nc79bWn/Z1LrkWkvbr5raWu6utPy6qWXFmSwQ+01Tj8I1Yg5qaiPuUs5e9e3KXip2s9ewE7YzSiyw2b9YE1SPMz1L5qfzkJnvWaz6GRXN6qp2ovq/ETXUguDvB7w22+iF7LKVtFnK31PTD1HIY6gjV/V1oVPrRphq8PQxep8VMMkzPmZbq4Nz7VneTd6hoSNIdEakom2VWW1nrmCghoyragO9SoFkrarJssgnXdX2VvilODIVYU5jOpxWKc/j03CZfaYu5XPp+nycW5zgtE/JecVpI1MZS9VqD1To5bDqCvCo4IJyANUKvE85jNJQmRRJ4cY/yucT9CEJOdLtFqaFlJwarnDMOTM6sEQH8kxdwILKLjOa5YwP0dWenpPAU9pd+DfBNIQtkZ+lBa2m2Ti+YfGz3s46Y1TTkg4wEbr4KFTL8D8VEeSocOjc2Q9BxLV4U+SB5Ghp8fu+HP9P6CcOZVIw8DpOudzateS983ZxRABoUJ09owdcuGq1MgexSi3N2X5pzUa6PqFlSRLnUOMe4ipF93wrihZnQsD/osOV/Qo5S7OPxdEONtU2HdqCqNFnJ3K5reuMta9u+elaBjcFL2tcM93jkdYrd+MSp8qEc0phqbKlT5mB8cs0t7XYmpq6g4LTCAylbNcOHm2QZbMun5Z183NJqUsnGRGXGt8E96k+KpnCzedjBumAbEMM0qcsKhy838wZOH3ZCvvPc7ck+krDFyU2HJb9wCegc0pFSl136xcXzzjSmmgAAKALCvmrz4otlpt2XgAxKrto6lTxlvHA6+e1irNaMoH8tBZGModVue9jRna8Ktl9tkZ2daeQGk+SmZ2rk0bKSCM6aG9Glosk6q7BkRsP5NKRO/YDSBekwXwmtzz4dB1WEQ9aFFf/eC+Vr4Hr6w9WS9Yn1nUpdTeacGLWCk3dBPpODLUy1/YItniirr0A+7aPL1IlVzPoci5ExGgalCfCBObx1RUxnoZcur1JkyEWPpa+OunOZGiGk6tZ5PopvmCrOOBNFdlXRuNMVlk8I7fKzVRHlY43T4N55iNDC1bKO3teDTPnLjuVcjefHykLiCeGtOxy33uLF0gGsWgHVA+58Z3dUel8gH9fSZZT92/1gsr0xkS/iG8Flq1pewTK8L/chPPvOfpVodW906OWvsfnp8Nf5YCSuRyJZBLfYEIfDvb5fJZcbkSfrKuL+Ku+J4Q+5/eCrFu5Tn5zEd9B4GdU4ZNxHTfC+YiQYk7Pd7/ZfvH+/TbFqvkGl3Z+t+A85pmrO1/fgFNcJIOYbbxKYGhpi4uuBbHvwyvuD8pvDoIZ0nxBkNfau7g4PD69IKQ8b9G8f947uqBrCHqATZOVadN9fgDM1zSBWShCSgcq+UAabf008UO6J4RSgz7dL8fT8xji/t6rVwT/WS8/3k3rg/0ezcIrY2Fy3eRNv/lMsGwgxUduxD7Iq3itvf1ohzBJoUy6XJcLzS8GxX/8h8PFCcOCAqiWBd9p80fN1iFa5DfJsNX9wESLxqVDzNYELHBWsKY6TJ2RjEYFiY20KVx++Emn7q3vE2Ppsja2jzY/61mVRkax6ePTVIg+vYdQ1/q5x+dM8hyWuaNog8n/mMPV+m/dEWvjxXTNxJJuPrVE+wg2RuwbWbo/XlycMnbqr1ugizjoOoegABnUgKz1Nuoh9qjO0lzfACrikynmygK+28id2Dc5bL7u6DFXFtBBT8lH39HFdmYf/mBLKglSSJUJWVMgolzIjXJmaiLWP4bOZB5SvV44ZTosN9Sqkmws5/9xlMD5pyH+QnyOtGv+T11xtunIvs0BNoSnPMzT0qU6REMatX94mw/6twpfX7Z6LARNK1rjg51ezszUmLyA3V5vw4nM6pUJsPCJWYaOHKMb8+5S7a3jVI8kuQUptdVPwb3+dHG/XPNmxTPQB8Yt5uaSVQzQV0TmFBPQ6SVZKU1l2McCRl19QspZZbPO1yS1tK3qeIY0SSON+bIz3TtnCK3jCqI953tY6GJN0WP6TJofsQlo2vdLt+GxzGC7keUFn5RsDBQkvpZ7eg4ihC1w2oN0ykxqIzRHY1vtZbDlLqFB14IEvn3239xQAIPK6Mo2NaEAmG+nHlmZ41ERRdhVT57kaDLHYKBOqWILG6QlaCFh6VFRw0kgiRTbuXVcZ0MUZZsxXVMGOwd8ItbNKPc8HHPtI7a4xC9/rGK4BUYTepXqKKu/vheysb+2nwDCsy77QN5rK/2nJj6bkQtF3E0kjONsUykiL6Iwrhp4+4NjXT2pJZhltY0+ape/ZHkS4seAIXeAFOi39qXu5027c3pyfiH2EJ/XpPaP3CwJ9FpnmDSVsOfrw1ZyjZHmfcrNJiTiBjKNBcVqpgOH5uhYorC0w87eCq0SnbUg4fidXLZJJhfhoNx6H3kbSP4OMRE19ou7/Lb1gfpS+/edRdoRbdHR8+2EEmpKXDps0KV/nrt2QZl1JqQqb0RCFPK5dOyKbpz9diDi+VvYnb1agSwhCkvo6o2olZMy4LD/7CFJaU2Dx4e3jq2XM+kyH4SZi6+flVJ11uwkQk5zskEa0niqdgDJ0EUZgFzXNQ+CpfuwwC6xhTWmZgT4uTDg3AmcDvsmBFciDAEdB5/N0oBu/I7vxCSXc8J0d9k8gBDi3KJckMm+DENqs3MMX4KDb3zirzjFx85zXvf9af6sjrOssnJdsjkVyLD71bq4NaeXvpV3kmctKoZg6Kpx7v+t/nUov4weODzMBeicji1ACg5BSD3PLgSqGZVVSa8m8KNjeMllQ8wnDYIbl8cuy3WIOjmSlWTlHlZauOYOB+1hceqXgkBcUH/JUb1+fWoWKuNm7Rca/emAMyoEar0gd82YyqMKSFXrBLGumgCstm1kMUBvHeQDp71rN07zBwbVjHFJRVHwKiX4Mw8XoWX7nPGVmTOJ7cp97MWdxzqcRAgDat9x13fq8j4L0pwFGHpbrmQf8DmA3daGeCwlQwiFdiyWctcN4dfc4aBA7I5N5jyu3FhOQz+lNIgsroyjez5Gza1Lz5vmbSgGEHfrIa6xCYMyO2yVIsrEBvrcrJlzAcyemh1tcG3TVAda1q7RfmmJKKVlnPCmpyiClZKFnclFv2S8LymBSBqouAKOjdJSeCN3FtYLbY07mIe2N98ex3Dt++OarqIiSHViQK9s8Fevb8v750dDOHlR0RJ2CKZMqKX1sll1x5F/4/JqXktX88wO8XMm7YHcWZuLjPpGqWvbjAwT52NR7XxTtwc0nKltQuLMKEGdRr4zMd9y3kZfY3FZvsWiLBYqEZmKZKSzOOQf5CGydTm0LjS1V2px+pBYvZAMlw+zfTk6e9PWds+6M9KqkfjxTd2VgptRCPjeI9ZWUJdou766HHZ2Rsjb0OaKijTPdnRwQqtIPTS9i2Ags/GsBI9wFpJOnMX55CSOMVkakjjCbSWi5xkMiSAtayC9T/UtoDoB41jvgOhT0iHVooMuzoP1+Rsn8AwwQ9Gj9RC6Pd6/NY5uv3fCXNCtUyYtvhw7D6cXl4gTuclN5qXQen3o3NO3lJcvDv8ite9JV27tNMi96WAbYKKcId6qUqRL1S1d/dOS4ceHr98evjo5pZt5nWO+GzaeZXV3jneP5RYC0/G7vfPD8cWvuif/dkDxInM0ZbkMK8FrXR4hs6bkUpBBnV2lVuGDiW1Q9K7IYEkWSt6ZYN/uXVIom8LivA11QfF8fz4hJG7t4oZI+JJOUJpDL0tT+TfAzu7I+MsacKbZSynmRnO+f8MzsfUjTJVDiAxd1kg30yV86xHjBPEvcwGWdXliOZJf6V+5+76mu8ZLMQPCSH972zG3D5Xgb0gPhJtuXC5fRG9lBGrC/aUsAd1mSQyND3VReuuub6nuycnxuPr+AHcpdYhe8SaB9ZcIFFdJ5Vf9QpSXqsrg56wXN1aT9bbVpx0YnXn3uGqCLs2vHLHVzWpge5Vraxh46YbJlK6dwUQ9tc2GsHwOZzL7ahGPcOmYZAvpO2YGk8AtlQfbQgjm/Lqgekm14++i9F1frvoL+IADlFKaxYuO7p6/zqCIzumrV4uKFb41oa8qgssqaSkVOxSPQ+KJfkG9dg//iiofEB4Lu3ydfzeJEfbT6G6o4/loAdAh8kqQiHxkHfKpSsv2essDDYOO0OPvbn7jC01t+MGsmwwlURmk6s3tS4j/wfbX27PrfRxZs/to6nhkS5vy8cXFz5S45JcuSKJUXqFhM8hLk7TirKlUZHLyChFsAg/pRnJalwmU5HNJITzW3Od1UQivysJ5tQc32AxkzYb+UCjaSjIHiC0kTb8ieEpKuV/Jrnz0NhrQhQWpzb47XYNRNphrLNdNjPgJZmzZhOW4bWNUmazAbUcSvjowvmbx1li6D9hu9BIvax+14ChsuJIBbC5xL5lxmo6lGMKyKlwORuZJTXoLlj6QoJ28PPlnvYeL07BzE3V7oUk+/aQrEZurkepuN65zKek/P5N7CJreJZAORbKN/rfeJ8CuGr+SbECHOeFHqg5m5cmrK8bytgBYQhImLt2uLvrIlJVJwI9B1YZrEXJuF29Oe8inLpJ5dZejf84B7Lxeg3e6//CL4KTOqvoONOv9Zq21+RZvZQMB8rWt6kesc454sfV2lO53EOVEiDq/oJvoqRPdTuPxD4cXLlV+2eECDjmbuIah7Q0SYcNL6RjKxxrupzG7LP+xN8s4SgMOddc1kOC3W05dtGtSF4/p/CqIrrJr/RIGMjpYgHiVrkXPtDrnO3JytTjRySeDTviCY+3vMU7b6omfXKVVWtHmjA92xc/msjjKf1D2g+bEj+nLc7mLEF/hOrMJpouKrCpCU3Gq86rceHfkmSM8AusfAK5dTNPPVMMK+Gejaodnpdp7p3Rrr3SF1aiv6K7lraaqa88+eiejYWXP1pbKVGwtVKiaSNKicaLvc/7ouk7+ykSnXcIFTFFD/BVoAmZMSe7b0kXGJX1dnevu2lyFS6zJjjdw0DKhyVkBiGpkQPccFJLJ3rx1rca3XPU3vqaVXrpzXnpXq/pv/QbL05OzC3yRaeYFvkbggFwxozHfEDYe86TGYyLe8Vgvl+ZDpzJcJmn6xojyWtZLa1uT60U83fR+XPuNt+bVuEE22dbXMOu/23UvjjXvpau+J3f4JgqzUesgSCcwJEhODOy35OrSVPt1wzAaN7xgGKw+PJexRi2SQgNor/Q6zlqH74PJOSVjBo94na/Zmh1dPt6yXs41qL5LY0DEDsd258tvursvnnf1321TK7RtPLFt/aq/f1p59cFub3en09vt9HZa5ysuWznERukjQTvlDfoklPO7ev8iwiXTKNYNMEpnGJJR6yTah/FDbz0bPOngf/Wk/6QP3b43QSDPn9yfB5PBDoTn8Ejumh61fvbp1vbv7rnALEm7wD90/19YlDaU/iIZVd/8Wn1XdIvLWgZRkNHpGzNLi5I+iXiEZQlw6yzg/N/An98hNWW+Ep5etA7uwa/h5A2aD+4D+tGfnkTz+1O6X3WwXYvGBZzgsLNClzpUCt4mGaJgfrCArZIEZDZaz5GEvcT20sss7lQz0TRjvvU/mB9lXx18AAA='
      skipDos2Unix: true
    }
  }
  dependsOn: [
    vmExtension0
  ]
}

// Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
resource vmExtension2 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'AzureMonitorLinuxAgent'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Monitor'
    type: 'AzureMonitorLinuxAgent'
    typeHandlerVersion: '1.40'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      authentication: {
        managedIdentity: {
          'identifier-name': 'mi_res_id'
          'identifier-value': identity.id
        }
      }
    }
  }
}

// Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or nvidia-smi fails. A standalone VM has no automatic repairs: the state shows as the VM's health (instance view) and the faults alert says how to recover.
resource vmExtension3 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'HealthExtension'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.ManagedServices'
    type: 'ApplicationHealthLinux'
    typeHandlerVersion: '2.0'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      protocol: 'http'
      port: 8711
      requestPath: '/health'
      intervalInSeconds: 30
      numberOfProbes: 2
    }
  }
  dependsOn: [
    vmExtension0
    vmExtension1
  ]
}

// Stop: the DevTest Labs auto-shutdown schedule deallocates the VM every day at 19:00
// (W. Europe Standard Time). Its name must be shutdown-computevm-<VM name>.
resource vmShutdown 'Microsoft.DevTestLab/schedules@2018-09-15' = {
  name: 'shutdown-computevm-vm-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    status: 'Enabled'
    taskType: 'ComputeVmShutdownTask'
    dailyRecurrence: {
      time: '1900'
    }
    timeZoneId: 'W. Europe Standard Time'
    notificationSettings: {
      // 30 minutes' warning to the alert emails (the mail links to postpone the shutdown).
      status: 'Enabled'
      timeInMinutes: 30
      emailRecipient: 'ops@example.com'
      notificationLocale: 'en'
    }
    targetResourceId: vm.id
  }
}

// Start: a Consumption Logic App starts the VM at 08:00 (W. Europe Standard Time) on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday,
// calling the VM's start operation with its system-assigned identity. The time zone of a
// Recurrence trigger applies only with a startTime (without offset); the date is in the past.
resource vmStart 'Microsoft.Logic/workflows@2019-05-01' = {
  name: 'logic-variant-devbox-spoke-start'
  location: location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    state: 'Enabled'
    // Workflow Definition Language (schema 2016-06-01); `$schema` is only needed for a
    // definition referenced externally, and leaving it out keeps every cloud host name out.
    definition: {
      contentVersion: '1.0.0.0'
      triggers: {
        Start_on_schedule: {
          type: 'Recurrence'
          recurrence: {
            frequency: 'Week'
            interval: 1
            startTime: '2025-01-01T00:00:00'
            timeZone: 'W. Europe Standard Time'
            schedule: {
              weekDays: [
                'Monday'
                'Tuesday'
                'Wednesday'
                'Thursday'
                'Friday'
                'Saturday'
                'Sunday'
              ]
              hours: [
                8
              ]
              minutes: [
                0
              ]
            }
          }
        }
      }
      actions: {
        Start_VM: {
          type: 'Http'
          runAfter: {}
          inputs: {
            method: 'POST'
            // the cloud's own Resource Manager endpoint (environment()), never a literal host
            uri: uri(environment().resourceManager, '${vm.id}/start?api-version=2025-11-01')
            authentication: {
              type: 'ManagedServiceIdentity'
              audience: environment().resourceManager
            }
          }
        }
      }
      outputs: {}
    }
  }
}

// Desktop Virtualization Power On Contributor: start and read this VM only (no deallocate, write or delete).
resource vmStartRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vm.id, vmStart.id, '489581de-a3bd-480d-9518-53dea7416b33')
  scope: vm
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '489581de-a3bd-480d-9518-53dea7416b33')
    principalId: vmStart.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The start workflow of the dev box starts it on working days.'
  }
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
      {
        category: 'AzurePolicyEvaluationDetails'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-variant-devbox-spoke'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-devb'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'ops@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute while the dev box runs; the Custom Script Extension
// installs it: systemd units on Linux, scheduled tasks on Windows) writes JSON lines to
// /var/log/gpuform/gpu-*.json; the Azure Monitor Agent on the VM sends them through the data
// collection rule into the custom table GpuTelemetry_CL of the pool's workspace.

// The input stream: a `Custom-` stream, as Learn documents for JSON log files (the REST spec's
// list of known dataFlows streams names only the built-in Microsoft-* ones).
var gpuStream = 'Custom-GpuTelemetry'

resource gpuTable 'Microsoft.OperationalInsights/workspaces/tables@2025-02-01' = {
  parent: workspace
  name: 'GpuTelemetry_CL'
  properties: {
    plan: 'Analytics'
    retentionInDays: 30
    schema: {
      name: 'GpuTelemetry_CL'
      description: 'GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.'
      columns: [
        {
          name: 'TimeGenerated'
          type: 'dateTime'
          description: 'When the collector sampled (UTC)'
        }
        {
          name: 'Computer'
          type: 'string'
          description: 'Host name of the VM'
        }
        {
          name: 'VmId'
          type: 'string'
          description: 'VM id from the instance metadata service'
        }
        {
          name: 'Priority'
          type: 'string'
          description: 'Spot or Regular'
        }
        {
          name: 'ExpectedGpus'
          type: 'int'
          description: 'GPUs the VM size has (whole GPUs; a partition counts as one)'
        }
        {
          name: 'GpuIndex'
          type: 'int'
          description: 'nvidia-smi index (AMD: amd-smi gpu); empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi (AMD: amd-smi market_name) names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent; AMD: gfx_activity)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB; AMD: used_vram)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB; AMD: total_vram)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C; AMD: hotspot, else edge)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W; AMD: socket_power); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded (AMD: total_uncorrectable_count, amd-smi only); empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log); empty on AMD'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version (AMD: amdgpu driver version)'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports (AMD: the ROCm release installed, /opt/rocm/.info/version)'
        }
        {
          name: 'RunningJobs'
          type: 'int'
          description: 'Jobs the workload reports running on the VM: the integer its supervisor writes to /run/gpuform/jobs (Windows: C:\\ProgramData\\gpuform\\jobs); empty when it writes none'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed, amd-smi-failed, rocm-smi-failed, no-gpu or tool-missing (AMD image without amd-smi/rocm-smi)'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'What the health probe answers: false when the VM\'s GPUs are missing or the driver fails (repaired); true on tool-missing (reported, not repaired)'
        }
        {
          name: 'Message'
          type: 'string'
          description: 'What failed, on health rows'
        }
      ]
    }
  }
}

// Ingestion endpoint of the agent (public: the agent sends over HTTPS with the pool's identity;
// nothing listens on the VMs).
resource gpuDce 'Microsoft.Insights/dataCollectionEndpoints@2023-03-11' = {
  name: 'dce-variant-devbox-spoke'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-devbox-spoke.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-devbox-spoke-gpu'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'GPU telemetry (JSON lines of the gpuform collector) into GpuTelemetry_CL.'
    dataCollectionEndpointId: gpuDce.id
    streamDeclarations: {
      'Custom-GpuTelemetry': {
        columns: [
          {
            name: 'TimeGenerated'
            type: 'datetime'
          }
          {
            name: 'Computer'
            type: 'string'
          }
          {
            name: 'VmId'
            type: 'string'
          }
          {
            name: 'Priority'
            type: 'string'
          }
          {
            name: 'ExpectedGpus'
            type: 'int'
          }
          {
            name: 'GpuIndex'
            type: 'int'
          }
          {
            name: 'GpuUuid'
            type: 'string'
          }
          {
            name: 'GpuName'
            type: 'string'
          }
          {
            name: 'UtilizationPercent'
            type: 'real'
          }
          {
            name: 'MemoryUsedMiB'
            type: 'real'
          }
          {
            name: 'MemoryTotalMiB'
            type: 'real'
          }
          {
            name: 'TemperatureC'
            type: 'real'
          }
          {
            name: 'PowerDrawW'
            type: 'real'
          }
          {
            name: 'EccUncorrected'
            type: 'long'
          }
          {
            name: 'XidErrors'
            type: 'long'
          }
          {
            name: 'XidCodes'
            type: 'string'
          }
          {
            name: 'DriverVersion'
            type: 'string'
          }
          {
            name: 'CudaVersion'
            type: 'string'
          }
          {
            name: 'RunningJobs'
            type: 'int'
          }
          {
            name: 'Status'
            type: 'string'
          }
          {
            name: 'Healthy'
            type: 'boolean'
          }
          {
            name: 'Message'
            type: 'string'
          }
        ]
      }
    }
    dataSources: {
      logFiles: [
        {
          name: 'gpuTelemetry'
          streams: [
            'Custom-GpuTelemetry'
          ]
          filePatterns: [
            '/var/log/gpuform/gpu-*.json'
          ]
          format: 'json'
        }
      ]
    }
    destinations: {
      logAnalytics: [
        {
          name: 'workspace'
          workspaceResourceId: workspace.id
        }
      ]
    }
    dataFlows: [
      {
        streams: [
          gpuStream
        ]
        destinations: [
          'workspace'
        ]
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, RunningJobs, Status, Healthy, Message'
        outputStream: 'Custom-GpuTelemetry_CL'
      }
    ]
  }
  dependsOn: [
    // the output stream is the table
    gpuTable
  ]
}

resource gpuDcrAssociation 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  name: 'gpu-telemetry'
  scope: vm
  properties: {
    description: 'The dev box sends GPU telemetry through dcr-variant-devbox-spoke-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: dev box on but idle'
    description: 'The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.'
    severity: 3
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = round(avg(UtilizationPercent), 1), ReportedMinutes = dcount(bin(TimeGenerated, 1m)) by Computer\n| where ReportedMinutes >= 45'
          timeAggregation: 'Average'
          metricMeasureColumn: 'AvgUtilization'
          operator: 'LessThan'
          threshold: 10
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: the dev box is on but its GPUs averaged \${data.alertContext.condition.allOf[0].metricValue}%, $0.658/h (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: VRAM pressure'
    description: 'A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = round(max(MemoryPercent), 1), PeakMemoryGiB = round(max(MemoryUsedMiB) / 1024.0, 1) by Computer, GpuIndex'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'PeakMemoryPercent'
          operator: 'GreaterThan'
          threshold: 90
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'GpuIndex'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
    severity: 1
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'let Since = now() - 10m;\nlet Seen = GpuTelemetry_CL\n| where TimeGenerated > now() - 60m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = GpuTelemetry_CL\n| where TimeGenerated > Since and Status != "ok"\n| join kind=inner Seen on Computer\n| where TimeGenerated >= FirstSeen + 30m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = GpuTelemetry_CL\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = "xid";\nlet Ecc = GpuTelemetry_CL\n| where TimeGenerated > Since and Status == "ok" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = "ecc-uncorrected";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples'
          timeAggregation: 'Total'
          metricMeasureColumn: 'FaultSamples'
          operator: 'GreaterThan'
          threshold: 0
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Kind'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box vm-variant-devbox-spoke has been running for 45 minutes (its Azure Monitor Agent's Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \gpuform\gpuform-gpu-collect), and the GpuCollector extension's status.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: no GPU telemetry from the running dev box'
    description: 'The dev box vm-variant-devbox-spoke has been running for 45 minutes (its Azure Monitor Agent\'s Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \\gpuform\\gpuform-gpu-collect), and the GpuCollector extension\'s status.'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT45M'
    criteria: {
      allOf: [
        {
          query: 'let Running = toscalar(Heartbeat\n| where TimeGenerated > now() - 45m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-spoke"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= 35 and FirstBeat <= now() - 40m and LastBeat >= now() - 15m, 1, 0)\n| project Up);\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-spoke" and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'SilentInstances'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: the running dev box sends no GPU telemetry (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// GPU utilisation and memory, running hours per day against the schedule, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'variant-devbox-spoke-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU dev box variant-devbox-spoke'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU dev box `vm-variant-devbox-spoke`\\nSampled once a minute by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL` while the box runs: 08:00 to 19:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday (W. Europe Standard Time). Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used (GiB)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used (GiB)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now())\\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\\n| extend ScheduledHours = 11.00\\n| order by Day asc","size":0,"title":"Running hours per day this month against the schedule (UTC days)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"barchart"},"customWidth":"50","name":"Running hours per day this month against the schedule (UTC days)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.658, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-devbox-spoke-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
  dependsOn: [
    gpuTable
  ]
}

// ---------------------------------------------------------------- outputs

@description('Resource id of the dev box VM.')
output vmId string = vm.id

@description('Principal id of the pool\'s managed identity (for more role assignments).')
output identityPrincipalId string = identity.properties.principalId

@description('Client id of the pool\'s managed identity (for SDK sign-in on the VMs).')
output identityClientId string = identity.properties.clientId

// built from the name and the cloud's Key Vault DNS suffix, never read from the vault (a landing
// zone's vault is in another subscription, where the deployer may have no read)
@description('URI of the Key Vault.')
output vaultUri string = 'https://${vault.name}${environment().suffixes.keyvaultDns}/'

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
