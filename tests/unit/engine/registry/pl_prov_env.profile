# Tuning profile for the pl_prov_env_profile* tests: FI_PROVIDER read
# through the parameter layer, profile first, environment over it.
export FI_PROVIDER=^testprov
