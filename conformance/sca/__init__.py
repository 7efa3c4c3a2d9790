"""Strong customer authentication (§5 SCA) as the suite walks it."""
