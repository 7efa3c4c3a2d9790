"""Strong customer authentication (§5 SCA)."""
